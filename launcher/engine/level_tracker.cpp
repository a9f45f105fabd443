#include "level_tracker.h"

#include <algorithm>

namespace iotap::engine {

ProviderRequest* LevelTracker::begin(const Event& event) {
  if (!accounts_.takes_level(event.level)) return nullptr;
  auto& stack = stacks_[event.tid];
  // Levels nest outermost first: an open request at this level or deeper lost its end.
  const auto deeper = std::find_if(
      stack.begin(), stack.end(), [&event](const auto& open) { return open.level >= event.level; });
  if (deeper != stack.end()) drop_from(event.tid, static_cast<size_t>(deeper - stack.begin()));
  if (event.id != 0) {
    // The same key open elsewhere: that one lost its end.
    if (const auto it = by_key_.find({event.level, event.id}); it != by_key_.end()) {
      const int32_t tid = it->second;
      auto& other = stacks_.at(tid);
      const auto open = std::find_if(other.begin(), other.end(), [&event](const auto& r) {
        return r.level == event.level && r.key == event.id;
      });
      if (open != other.end()) drop_from(tid, static_cast<size_t>(open - other.begin()));
    }
    by_key_[{event.level, event.id}] = event.tid;
  }
  ProviderRequest request;
  request.id = next_id_++;
  request.tid = event.tid;
  request.level = event.level;
  request.key = event.id;
  request.op = event.rw;
  request.file = event.inode;
  request.offset = event.offset;
  request.size = event.size;
  request.start = event.ts;
  auto& open = stacks_[event.tid];  // drop_from may have rehashed
  open.push_back(std::move(request));
  return &open.back();
}

void LevelTracker::text(const Event& event, std::string_view text) {
  const auto it = stacks_.find(event.tid);
  if (it == stacks_.end()) return;
  auto& stack = it->second;
  for (size_t i = stack.size(); i-- > 0;) {
    ProviderRequest& open = stack[i];
    if (open.level != event.level || (event.id != 0 && open.key != event.id)) continue;
    open.text.assign(text.substr(0, kTextBytes));
    // The probe turns newlines and tabs into spaces; a stream from elsewhere may not have.
    std::replace_if(
        open.text.begin(), open.text.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
    return;
  }
}

std::optional<LevelTracker::Place> LevelTracker::find(const Event& event) const {
  int32_t tid = event.tid;
  if (event.id != 0) {
    const auto it = by_key_.find({event.level, event.id});
    if (it == by_key_.end()) return std::nullopt;
    tid = it->second;
  }
  const auto it = stacks_.find(tid);
  if (it == stacks_.end()) return std::nullopt;
  const auto& stack = it->second;
  for (size_t i = stack.size(); i-- > 0;) {
    if (stack[i].level == event.level && stack[i].key == event.id) return Place{tid, i};
  }
  return std::nullopt;
}

void LevelTracker::end(Place place, uint64_t ts, int64_t result) {
  drop_from(place.tid, place.index + 1);
  auto& stack = stacks_.at(place.tid);
  ProviderRequest& request = stack[place.index];
  forget_key(request);
  accounts_.ended(request, ts, result);
  stack.pop_back();
  if (stack.empty()) stacks_.erase(place.tid);
}

void LevelTracker::add_leaf(int32_t tid, char op, const LeafOutcome& outcome,
                            const std::function<Waterfall()>& waterfall) {
  const auto it = stacks_.find(tid);
  if (it == stacks_.end()) return;
  for (ProviderRequest& request : it->second) accounts_.add_leaf(request, op, outcome, waterfall);
}

void LevelTracker::finish() {
  for (auto& [tid, stack] : stacks_) {
    for (const ProviderRequest& request : stack) {
      accounts_.unfinished(request.level);
      if (dropped_) dropped_(request);
    }
  }
  stacks_.clear();
  by_key_.clear();
}

void LevelTracker::forget_leaf(int32_t tid, uint64_t leaf) {
  const auto it = stacks_.find(tid);
  if (it == stacks_.end()) return;
  for (ProviderRequest& request : it->second)
    if (request.leaf == leaf) request.leaf = 0;
}

void LevelTracker::drop_from(int32_t tid, size_t index) {
  auto& stack = stacks_.at(tid);
  while (stack.size() > index) {
    const ProviderRequest& request = stack.back();
    forget_key(request);
    accounts_.unfinished(request.level);
    if (dropped_) dropped_(request);
    stack.pop_back();
  }
}

void LevelTracker::forget_key(const ProviderRequest& request) {
  if (request.key == 0) return;
  const auto it = by_key_.find({request.level, request.key});
  if (it != by_key_.end() && it->second == request.tid) by_key_.erase(it);
}

}  // namespace iotap::engine
