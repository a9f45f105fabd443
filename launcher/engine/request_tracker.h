#pragma once
// The user-level requests: reads named by USDT probes (RS/RD) or I/O system calls (SS/SD).
// Which request each thread has open, and which root bios each request queued. A request ends
// at RD (by its id) or SD (by its thread: a thread is in one system call at a time) and goes,
// with its bio trees, to attribution.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bio_tree.h"
#include "event.h"

namespace iotap::engine {

struct Request {
  uint64_t id = 0;
  int32_t tid = 0;
  int32_t thread = 0;  // RS: the program's thread index; SS: the tid
  uint64_t block = 0, offset = 0, size = 0;
  uint64_t start = 0;
  char op = 'R';                // R, W or F (fsync, fdatasync)
  int syscall = -1;             // SS: its index in kSyscalls; -1 for a USDT read
  uint32_t dev = 0;             // SS: the file's device
  bool direct = false;          // O_DIRECT
  bool provider = false;        // a provider's request (PB) that is itself the leaf I/O
  std::vector<uint32_t> roots;  // held in the pool until the read ends
};

// What the request was: its system call ("pread64"), or for a USDT request its op ("read",
// "write", "flush": block_hasher reads, io_replayer does all three).
inline std::string_view call_name(const Request& request) {
  if (request.syscall >= 0) return kSyscalls[static_cast<size_t>(request.syscall)].name;
  return request.op == 'W' ? "write" : request.op == 'F' ? "flush" : "read";
}

class RequestTracker {
 public:
  explicit RequestTracker(BioPool& pool) : pool_(pool) {}

  // RS (or SS, through start_syscall): `direct` is whether the read bypasses the page cache.
  void start(const Event& event, bool direct = false);
  // SS: a new request, numbered here (the stream carries no id for it: counting in the probe
  // would need a lock).
  void start_syscall(const Event& event);
  // PB of a provider request that is itself the leaf I/O (the stream has no system calls):
  // numbered as a system call is; returns its id.
  uint64_t start_provider_leaf(const Event& event);
  // Forgets the request `id` without counting it: a provider leaf that turned out to hold
  // system calls (they are the leaves), or whose own request was dropped (counted there).
  void release(uint64_t id) {
    if (const auto it = open_.find(id); it != open_.end()) close(it);
  }
  // Forgets what `tid` has open (an SS the engine does not follow came in: anything open there
  // lost its end).
  void abandon_on(int32_t tid);

  // The read `tid` has open, if any.
  const Request* open_on(int32_t tid) const {
    const auto t = by_tid_.find(tid);
    if (t == by_tid_.end()) return nullptr;
    const auto it = open_.find(t->second);
    return it == open_.end() ? nullptr : &it->second;
  }
  void add_root(uint64_t request, uint32_t node);

  // Ends the read; calls finished(const Request&, end_ts, result). False if the read was never
  // seen to start.
  template <typename Finished>
  bool done(const Event& event, Finished&& finished) {
    return end(open_.find(event.id), event, finished);
  }

  // SD: ends the call `event.tid` has open, as done() does. False if it has none (a call the
  // probe left out at its start: on a pipe, say).
  template <typename Finished>
  bool done_on_thread(const Event& event, Finished&& finished) {
    const auto t = by_tid_.find(event.tid);
    return t != by_tid_.end() && end(open_.find(t->second), event, finished);
  }

  size_t open() const { return open_.size(); }
  uint64_t abandoned() const { return abandoned_; }

 private:
  Event as_read_start(const Event& event);
  // The one way a request ends (done, done_on_thread): attribution hears of it, then it closes.
  template <typename Finished>
  bool end(std::unordered_map<uint64_t, Request>::iterator it, const Event& event,
           Finished& finished) {
    if (it == open_.end()) return false;
    finished(it->second, event.ts, event.value);
    close(it);
    return true;
  }
  // Forgets the read and lets go of its bio trees.
  void close(std::unordered_map<uint64_t, Request>::iterator it);

  BioPool& pool_;
  std::unordered_map<uint64_t, Request> open_;  // by request id
  std::unordered_map<int32_t, uint64_t> by_tid_;
  uint64_t abandoned_ = 0;  // reads whose thread started another before their end was seen
  uint64_t next_syscall_id_ = 1;
};

}  // namespace iotap::engine
