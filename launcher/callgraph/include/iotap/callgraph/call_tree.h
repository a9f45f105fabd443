#pragma once
// The call/return events of a run, built into one call tree per thread.
//
// Events are sorted by time per thread before they are joined: the target's CPUs write into
// separate buffers, so a thread that migrated can show up out of order in the stream.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iotap/callgraph/call_event.h"

namespace iotap::callgraph {

struct Call {
  std::string function;
  Side side = Side::kUser;
  std::string arguments;
  std::string return_value;
  uint64_t entry_ns = 0;
  std::optional<uint64_t> return_ns;  // none: no return was seen (still running at the end)
  bool unwound = false;               // an exception unwound it: return_ns is when that was seen
  std::vector<Call> calls;            // the calls it made, in order
};

struct ThreadCalls {
  int pid = 0;
  int tid = 0;
  uint64_t first_ns = 0;
  uint64_t last_ns = 0;     // the thread's last event: where its unfinished calls end
  std::vector<Call> calls;  // its outermost calls, in order
};

struct CallGraph {
  uint64_t start_ns = 0;  // the run's first event: times are shown relative to it
  uint64_t end_ns = 0;
  std::vector<ThreadCalls> threads;  // in order of their first event
  size_t entries = 0;
  size_t returns = 0;
  // A return with no open call of that function on its thread (entered before tracing began,
  // or its entry was lost): counted and left out of the tree.
  size_t unmatched_returns = 0;
  size_t unfinished_calls = 0;  // entries with no return
  size_t unwound_calls = 0;     // entries an exception unwound (neither returns nor unfinished)
};

class CallTreeBuilder {
 public:
  void add(CallEvent event);
  [[nodiscard]] CallGraph build() const;

 private:
  std::map<int, std::vector<CallEvent>> by_tid_;
  std::vector<int> tid_order_;  // first appearance in the stream
};

// The end of `call`: its return, or the end of its thread when it has none.
uint64_t end_ns(const Call& call, const ThreadCalls& thread);

}  // namespace iotap::callgraph
