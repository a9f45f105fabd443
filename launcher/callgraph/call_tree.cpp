#include "iotap/callgraph/call_tree.h"

#include <algorithm>
#include <charconv>

namespace iotap::callgraph {
namespace {

bool parse_number(std::string_view text, size_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

// Joins one thread's time-ordered events. `open` holds the calls not yet returned, outermost
// first; each is the last element of its parent's `calls`, so no later push_back moves it.
void join_thread(const std::vector<CallEvent>& events, ThreadCalls& thread, CallGraph& graph) {
  std::vector<Call*> open;
  for (const CallEvent& event : events) {
    if (event.direction == Direction::kEntry) {
      ++graph.entries;
      auto& siblings = open.empty() ? thread.calls : open.back()->calls;
      siblings.push_back(
          Call{event.function, event.side, event.detail, "", event.ns, {}, false, {}});
      open.push_back(&siblings.back());
      continue;
    }
    if (event.direction == Direction::kUnwound) {
      // An exception unwound the thread's innermost N calls (traced or not: with a trigger
      // the ones outside it were never open here).
      size_t frames = 0;
      if (event.detail.starts_with("frames=")) parse_number(event.detail.substr(7), frames);
      for (; frames > 0 && !open.empty(); --frames, open.pop_back()) {
        open.back()->return_ns = event.ns;
        open.back()->unwound = true;
        ++graph.unwound_calls;
      }
      continue;
    }
    ++graph.returns;
    // The innermost open call of this function: calls above it never returned (a longjmp, an
    // exception, a lost event) and stay unfinished.
    const auto match = std::find_if(open.rbegin(), open.rend(), [&](const Call* call) {
      return call->function == event.function && call->side == event.side;
    });
    if (match == open.rend()) {
      ++graph.unmatched_returns;
      continue;
    }
    Call& call = **match;
    call.return_ns = event.ns;
    call.return_value = event.detail;
    open.erase(std::next(match).base(), open.end());
  }
}

size_t count_unfinished(const std::vector<Call>& calls) {
  size_t count = 0;
  for (const Call& call : calls) {
    count += (call.return_ns ? 0 : 1) + count_unfinished(call.calls);
  }
  return count;
}

}  // namespace

void CallTreeBuilder::add(CallEvent event) {
  auto& events = by_tid_[event.tid];
  if (events.empty()) tid_order_.push_back(event.tid);
  events.push_back(std::move(event));
}

CallGraph CallTreeBuilder::build() const {
  CallGraph graph;
  bool first = true;
  for (const int tid : tid_order_) {
    std::vector<CallEvent> events = by_tid_.at(tid);
    std::stable_sort(events.begin(), events.end(),
                     [](const CallEvent& a, const CallEvent& b) { return a.ns < b.ns; });
    ThreadCalls thread;
    thread.pid = events.front().pid;
    thread.tid = tid;
    thread.first_ns = events.front().ns;
    thread.last_ns = events.back().ns;
    graph.start_ns = first ? thread.first_ns : std::min(graph.start_ns, thread.first_ns);
    graph.end_ns = std::max(graph.end_ns, thread.last_ns);
    first = false;
    join_thread(events, thread, graph);
    graph.unfinished_calls += count_unfinished(thread.calls);
    graph.threads.push_back(std::move(thread));
  }
  // Threads in the order they started (the stream's order can differ between CPUs).
  std::stable_sort(
      graph.threads.begin(), graph.threads.end(),
      [](const ThreadCalls& a, const ThreadCalls& b) { return a.first_ns < b.first_ns; });
  return graph;
}

uint64_t end_ns(const Call& call, const ThreadCalls& thread) {
  return call.return_ns.value_or(thread.last_ns);
}

}  // namespace iotap::callgraph
