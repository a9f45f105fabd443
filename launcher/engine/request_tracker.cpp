#include "request_tracker.h"

namespace iotap::engine {

void RequestTracker::abandon_on(int32_t tid) {
  if (const auto t = by_tid_.find(tid); t != by_tid_.end()) {
    if (const auto it = open_.find(t->second); it != open_.end()) {
      close(it);
      ++abandoned_;
    }
  }
}

// A system call or a provider's leaf I/O as an RS would give it: numbered here, on its thread.
// Built field by field: the event's other fields share bytes with RS's (event.h).
Event RequestTracker::as_read_start(const Event& event) {
  Event numbered;
  numbered.kind = Kind::read_start;
  numbered.ts = event.ts;
  numbered.tid = event.tid;
  numbered.rw = event.rw;
  numbered.id = next_syscall_id_++;
  numbered.thread = event.tid;
  numbered.offset = event.offset;
  numbered.size = event.size;
  return numbered;
}

void RequestTracker::start_syscall(const Event& event) {
  const Event numbered = as_read_start(event);
  start(numbered, event.direct != 0);
  Request& request = open_.at(numbered.id);
  request.op = event.rw;
  request.syscall = event.syscall;
  request.dev = event.dev;
}

uint64_t RequestTracker::start_provider_leaf(const Event& event) {
  const Event numbered = as_read_start(event);
  start(numbered, false);
  Request& request = open_.at(numbered.id);
  request.op = event.rw;
  request.provider = true;
  return numbered.id;
}

void RequestTracker::start(const Event& event, bool direct) {
  // A thread has one request open at a time: an earlier one still open lost its end.
  abandon_on(event.tid);
  if (const auto it = open_.find(event.id); it != open_.end()) {
    close(it);
    ++abandoned_;
  }
  Request request;
  request.id = event.id;
  request.tid = event.tid;
  request.thread = event.thread;
  request.block = event.block;
  request.offset = event.offset;
  request.size = event.size;
  request.start = event.ts;
  request.op = event.rw == 'W' || event.rw == 'F' ? event.rw : 'R';  // RS: R; US: its op
  request.direct = direct;
  open_.emplace(event.id, std::move(request));
  by_tid_[event.tid] = event.id;
}

void RequestTracker::add_root(uint64_t request, uint32_t node) {
  const auto it = open_.find(request);
  if (it == open_.end()) return;
  pool_.ref(node);
  it->second.roots.push_back(node);
}

void RequestTracker::close(std::unordered_map<uint64_t, Request>::iterator it) {
  const Request& request = it->second;
  if (const auto t = by_tid_.find(request.tid); t != by_tid_.end() && t->second == request.id)
    by_tid_.erase(t);
  for (const uint32_t root : request.roots) pool_.unref(root);
  open_.erase(it);
}

}  // namespace iotap::engine
