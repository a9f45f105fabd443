#include "bio_tracker.h"

#include <algorithm>

namespace iotap::engine {
namespace {

constexpr uint64_t kSector = 512;
// How long the bios a D covered wait for C events of their own before the D ends them.
constexpr uint64_t kCoveredWaitNs = 1'000'000;

uint64_t sectors_of(uint64_t bytes) {
  return std::max<uint64_t>(1, (bytes + kSector - 1) / kSector);
}

}  // namespace

uint32_t BioTracker::device_of(uint32_t dev) {
  const size_t index = stack_.index_of(dev);
  if (index >= devices_.size()) devices_.resize(index + 1);
  if (index >= in_flight_.size()) in_flight_.resize(index + 1);
  return static_cast<uint32_t>(index);
}

uint32_t BioTracker::make(const Event& event, uint32_t device, uint64_t sector, uint32_t bytes,
                          uint32_t parent, uint8_t flags) {
  const uint32_t index = pool_.make();  // its reference is the one in flight
  BioNode& node = pool_[index];
  node.address = event.id;
  node.serial = ++serials_;
  node.start = event.ts;
  node.sector = sector;
  node.sectors = sectors_of(bytes);
  node.bytes = bytes;
  node.device = device;
  node.parent = parent;
  node.tid = event.tid;
  node.flags = flags | BioNode::in_flight;
  if (parent != kNoNode) {
    pool_.ref(parent);
    const BioNode& up = pool_[parent];
    if (up.has(BioNode::has_request)) {
      node.flags |= BioNode::has_request;
      node.request = up.request;
    }
    if (node.has(BioNode::remapped) && up.device != kNoDevice &&
        stack_[up.device].layer != LayerId::member)
      node.flags |= BioNode::md_or_dm_member;
  }
  if (device != kNoDevice) in_flight_[device].add(pool_, index);
  by_address_[event.id] = index;
  return index;
}

void BioTracker::forget(uint32_t index) {
  BioNode& node = pool_[index];
  if (const uint32_t* found = by_address_.find(node.address); found != nullptr && *found == index)
    by_address_.erase(node.address);
  if (node.device != kNoDevice) in_flight_[node.device].remove(pool_, index);
  node.flags &= static_cast<uint8_t>(~BioNode::in_flight);
}

void BioTracker::abandon(uint32_t index) {
  BioNode& node = pool_[index];
  if (node.has(BioNode::rq_done)) {
    // A request's completion (D) covered it and it was waiting only for a C of its own that
    // might follow; its address coming back says none will: it ended at the D. (A freed clone's
    // address is often reused on another CPU within microseconds of the D.)
    finish(index, node.rq_end, node.rq_error);
    return;
  }
  ++stats_.abandoned;
  drop(index);
}

void BioTracker::drop(uint32_t index) {
  forget(index);
  const uint32_t parent = pool_[index].parent;
  // A bio remapped as itself (same_bio) is one bio in two nodes: the first stage, out of the
  // address map, ends only with the second. Dropped with it, or it would be held forever.
  if (parent != kNoNode && pool_[index].has(BioNode::same_bio) &&
      pool_[parent].has(BioNode::in_flight))
    drop(parent);
  if (parent != kNoNode) pool_.unref(parent);
  pool_.unref(index);
}

void BioTracker::queue(const Event& event) {
  const uint32_t device = device_of(event.dev);
  if (const uint32_t* found = by_address_.find(event.id); found != nullptr) {
    BioNode& known = pool_[*found];
    if (known.has(BioNode::awaiting_queue) && known.device == device) {
      // The member bio md or dm just remapped: its time on the member starts here.
      known.start = event.ts;
      known.flags &= static_cast<uint8_t>(~BioNode::awaiting_queue);
      return;
    }
    abandon(*found);
  }
  const bool top = stack_.is_top(device);
  const Request* request = top ? requests_.open_on(event.tid) : nullptr;
  const uint32_t index =
      make(event, device, event.sector, event.bytes, md_flush_parent(event, device), BioNode::io);
  if (top && request == nullptr) count_unrequested(event);
  if (request != nullptr) {
    pool_[index].flags |= BioNode::has_request;
    pool_[index].request = request->id;
    requests_.add_root(request->id, index);
  }
}

void BioTracker::split(const Event& event) {
  // dm split the bio: it sent the front part on as clones (their M events join them to this
  // bio by sector) and goes on with the rest, the same bio, to one completion.
  if (event.id == event.parent) return;
  if (const uint32_t* found = by_address_.find(event.id); found != nullptr) abandon(*found);
  const uint32_t* parent = by_address_.find(event.parent);
  if (parent == nullptr) {
    // A part of a bio never seen: kept so its completion is not taken for loss.
    make(event, kNoDevice, event.sector, event.bytes, kNoNode, 0);
    return;
  }
  const uint32_t parent_index = *parent;
  BioNode& up = pool_[parent_index];
  // The parent goes on from the end of the part: a request-based disk's D covers only that.
  if (event.sector >= up.sector)
    up.split_off = std::max(up.split_off, event.sector - up.sector + sectors_of(event.bytes));
  make(event, up.device, event.sector, event.bytes, parent_index, 0);
}

void BioTracker::count_unrequested(const Event& event) {
  if (event.rw == 'R')
    ++unrequested_.reads;
  else if (event.rw == 'W' && event.bytes == 0)
    ++unrequested_.flushes;
  else if (event.rw == 'W')
    ++unrequested_.writes;
  else
    ++unrequested_.others;
  unrequested_.bytes += event.bytes;
}

uint32_t BioTracker::md_flush_parent(const Event& event, uint32_t device) const {
  if (event.bytes != 0 || event.rw != 'W') return kNoNode;
  const size_t parent = stack_[device].parent;
  if (parent == SIZE_MAX || stack_[parent].layer != LayerId::md) return kNoNode;
  uint32_t newest = kNoNode;
  for (const uint32_t index : in_flight_[parent].all()) {
    const BioNode& node = pool_[index];
    if (node.bytes == 0 && (newest == kNoNode || node.start > pool_[newest].start)) newest = index;
  }
  return newest;
}

uint32_t BioTracker::container(uint32_t device, uint64_t sector, int32_t tid) const {
  uint32_t best = kNoNode;
  in_flight_[device].near(pool_, sector, [&](uint32_t index) {
    const BioNode& node = pool_[index];
    if (sector < node.sector || sector - node.sector >= node.sectors) return;
    if (best == kNoNode) {
      best = index;
      return;
    }
    const BioNode& other = pool_[best];
    // Smallest first; then the one the remapping thread queued; then the newest (the later
    // made of two queued at the same time: the result does not depend on the order looked in).
    if (node.sectors != other.sectors) {
      if (node.sectors < other.sectors) best = index;
    } else if ((node.tid == tid) != (other.tid == tid)) {
      if (node.tid == tid) best = index;
    } else if (node.start != other.start ? node.start > other.start : node.serial > other.serial) {
      best = index;
    }
  });
  return best;
}

void BioTracker::remap(const Event& event) {
  const uint32_t from = device_of(event.from_dev);
  const uint32_t device = device_of(event.dev);
  uint8_t flags = BioNode::io | BioNode::awaiting_queue | BioNode::remapped;
  if (const uint32_t* found = by_address_.find(event.id); found != nullptr) {
    const uint32_t known = *found;
    if (pool_[known].device == from) {
      // Older kernels remap the bio itself rather than a clone: one bio, two stages.
      make(event, device, event.sector, event.bytes, known, flags | BioNode::same_bio);
      return;
    }
    abandon(known);  // before the search: it may drop a node the search would find
  }
  make(event, device, event.sector, event.bytes, container(from, event.from_sector, event.tid),
       flags);
}

void BioTracker::complete(const Event& event) {
  const uint32_t* found = by_address_.find(event.id);
  if (found == nullptr) {
    if (event.cpu >= split_completions_due_.size()) split_completions_due_.resize(event.cpu + 1);
    SplitCompletionsDue& due = split_completions_due_[event.cpu];
    if (due.count != 0 && event.seq <= due.until) {
      --due.count;
      ++stats_.untraced_split_completions;
    } else {
      ++stats_.unmatched_completions;
    }
    return;
  }
  const uint32_t index = *found;
  if (member_of_md_or_dm(index)) expect_split_completion(event.cpu, event.seq);
  finish(index, event.ts, static_cast<int32_t>(event.value));
}

void BioTracker::expect_split_completion(uint32_t cpu, uint64_t member_completion_seq) {
  // A disk's interrupt may land between the member's completion and md's, on the same CPU, and
  // trace a D and a C or two of its own: a few events of slack.
  constexpr uint64_t kInterruptSlack = 8;
  if (cpu >= split_completions_due_.size()) split_completions_due_.resize(cpu + 1);
  SplitCompletionsDue& due = split_completions_due_[cpu];
  if (member_completion_seq > due.until) due.count = 0;  // those owed before are past due
  ++due.count;
  due.until = std::max(due.until, member_completion_seq + kInterruptSlack);
}

bool BioTracker::member_of_md_or_dm(uint32_t index) const {
  return pool_[index].has(BioNode::md_or_dm_member);
}

void BioTracker::rq_issue(const Event& event) {
  issued_[event.id] = event.ts;  // a request reissued (requeued) counts from its last issue
}

void BioTracker::rq_complete(const Event& event) {
  const uint32_t device = device_of(event.dev);
  if (const uint64_t* issued = issued_.find(event.id); issued != nullptr) {
    // A partial completion ends the request's service here; the rest is not timed again.
    devices_[device].service.add(event.ts > *issued ? event.ts - *issued : 0);
    issued_.erase(event.id);
  }
  const uint64_t first = event.sector;
  const uint64_t last = event.sector + event.bytes / kSector;  // exclusive
  // An empty D ends the request of an empty flush bio (the block layer sent the disk its own
  // flush request meanwhile): it covers the empty bios at its sector, and only those.
  const bool empty = event.bytes == 0;
  if (event.cpu >= covered_.size()) covered_.resize(event.cpu + 1);
  Covered& covered = covered_[event.cpu];
  if (!covered.bios.empty()) settle(event.cpu);
  for (const uint32_t index : in_flight_[device].all()) {
    BioNode& node = pool_[index];
    const uint64_t from = node.sector + std::min(node.split_off, node.sectors - 1);
    const bool covered_here = empty ? node.bytes == 0 && node.sector == first
                                    : from >= first && node.sector + node.sectors <= last;
    if (node.has(BioNode::rq_done) || !covered_here) continue;
    node.flags |= BioNode::rq_done;
    node.rq_end = event.ts;
    node.rq_error = static_cast<int32_t>(event.value);
    covered.bios.emplace_back(index, node.address);
  }
  if (covered.bios.empty()) return;
  // A part split from a bio ends before the bio it was cut from: smallest first.
  std::sort(covered.bios.begin(), covered.bios.end(), [this](const auto& a, const auto& b) {
    return pool_[a.first].sectors < pool_[b.first].sectors;
  });
  covered.ts = event.ts;
  covered.seq = event.seq;
  covered.error = static_cast<int32_t>(event.value);
  ++covered_cpus_;
}

void BioTracker::before(const Event& event) {
  if (covered_cpus_ == 0) return;
  if (event.kind == Kind::read_done || event.kind == Kind::level_end) {
    settle_all();
    return;
  }
  for (uint32_t cpu = 0; cpu < covered_.size() && covered_cpus_ != 0; ++cpu) {
    Covered& covered = covered_[cpu];
    if (covered.bios.empty()) continue;
    if (cpu != event.cpu) {
      if (event.ts > covered.ts + kCoveredWaitNs) settle(cpu);
      continue;
    }
    if (event.kind == Kind::complete) {
      auto& bios = covered.bios;
      const auto it = std::find_if(bios.begin(), bios.end(),
                                   [&event](const auto& bio) { return bio.second == event.id; });
      if (it != bios.end()) {
        // The kernel traces this bio's completion itself: its C ends it.
        bios.erase(it);
        if (bios.empty()) --covered_cpus_;
        continue;
      }
    }
    settle(cpu);
  }
}

void BioTracker::settle_all() {
  for (uint32_t cpu = 0; cpu < covered_.size() && covered_cpus_ != 0; ++cpu)
    if (!covered_[cpu].bios.empty()) settle(cpu);
}

void BioTracker::settle(uint32_t cpu) {
  Covered& covered = covered_[cpu];
  bool member = false;
  for (const auto& [index, address] : covered.bios) {
    const uint32_t* found = by_address_.find(address);
    // Ended or given up since; or its node and address went to a new bio (ended at its D when
    // the address came back), which no D has covered.
    if (found == nullptr || *found != index || !pool_[index].has(BioNode::rq_done)) continue;
    member = member || member_of_md_or_dm(index);
    finish(index, covered.ts, covered.error);
  }
  covered.bios.clear();
  --covered_cpus_;
  // As after a C: md completes the bio it split at a chunk boundary right after its clone,
  // counted from the D's own SEQ whatever settled it (the C itself, or another CPU's event: a
  // read's end in the same nanosecond).
  if (member) expect_split_completion(cpu, covered.seq);
}

void BioTracker::finish(uint32_t index, uint64_t ts, int32_t error) {
  forget(index);
  BioNode& node = pool_[index];
  node.end = std::max(ts, node.start);
  node.error = error;
  if (node.critical != kNoNode) {
    const BioNode& child = pool_[node.critical];
    uint64_t low = child.device == node.device ? child.covered_start : child.start;
    uint64_t high = child.device == node.device ? child.covered_end : child.end;
    low = std::max(low, node.start);
    high = std::min(high, node.end);
    if (high > low) {
      node.covered_start = low;
      node.covered_end = high;
    }
  }
  if (node.has(BioNode::io) && node.device != kNoDevice) {
    DeviceStats& stats = devices_[node.device];
    const uint64_t dwell = node.dwell();
    ++stats.ios;
    stats.bytes += node.bytes;
    if (error != 0) ++stats.errors;
    stats.latency.add(dwell);
    stats.dwell_ns += static_cast<double>(dwell);
    stats.exclusive_ns += static_cast<double>(dwell - (node.covered_end - node.covered_start));
  }
  if (finished_bio_) {
    FinishedBio bio;
    bio.id = node.serial;
    bio.parent_id = node.parent != kNoNode ? pool_[node.parent].serial : 0;
    bio.request_id = node.has(BioNode::has_request) ? node.request : 0;
    if (node.device != kNoDevice) {
      bio.dev = stack_[node.device].info.dev;
      bio.device = stack_[node.device].info.name;
    }
    bio.sector = node.sector;
    bio.bytes = node.bytes;
    bio.start_ns = node.start;
    bio.end_ns = node.end;
    bio.error = error;
    bio.io = node.has(BioNode::io);
    finished_bio_(bio);
  }
  const uint32_t parent = node.parent;
  const bool same_bio = node.has(BioNode::same_bio);
  const uint64_t end = node.end;
  if (parent != kNoNode) {
    BioNode& up = pool_[parent];
    if (up.critical == kNoNode || end >= pool_[up.critical].end) {
      pool_.ref(index);
      const uint32_t previous = up.critical;
      up.critical = index;
      if (previous != kNoNode) pool_.unref(previous);
    }
  }
  pool_.unref(index);  // no longer in flight
  if (parent != kNoNode) {
    if (same_bio && pool_[parent].has(BioNode::in_flight)) finish(parent, ts, error);
    pool_.unref(parent);
  }
}

}  // namespace iotap::engine
