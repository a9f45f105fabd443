#pragma once
// A provider's requests (PB, PT, PE), nested by thread: each thread has a stack of open
// requests, outermost first. A PB opens a request inside the thread's innermost open one; a PE
// ends the request its KEY names (KEY != 0), or its thread's innermost open request at its
// LEVEL (KEY 0). Levels are declared outermost first, so a PB at a level no deeper than an
// open request's says that request (and those inside it) lost its end: they are dropped, and a
// thread's stack is never deeper than the provider has levels. Memory follows what is open.
//
// The leaf I/O that ends on a thread (a system call, or a provider request that is itself the
// leaf) is added to every request open on that thread (add_leaf); a request's end goes to
// LevelAccounts.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attribution.h"
#include "event.h"
#include "iotap/engine.h"
#include "level_accounts.h"
#include "provider_request.h"

namespace iotap::engine {

class LevelTracker {
 public:
  // `dropped` hears of each request dropped before its end (to let go of its leaf).
  LevelTracker(LevelAccounts& accounts, std::function<void(const ProviderRequest&)> dropped)
      : accounts_(accounts), dropped_(std::move(dropped)) {}

  // PB. Null when its LEVEL is not one of the provider's (a malformed line).
  ProviderRequest* begin(const Event& event);
  // PT: the text of the thread's innermost open request at its level.
  void text(const Event& event, std::string_view text);

  // Where an open request is: its thread, and its place on that thread's stack.
  struct Place {
    int32_t tid = 0;
    size_t index = 0;
  };
  // PE: the open request it ends; nothing when none is open (its start was not seen).
  [[nodiscard]] std::optional<Place> find(const Event& event) const;
  ProviderRequest& at(Place place) { return stacks_.at(place.tid)[place.index]; }
  // Ends the request at `place` (requests opened inside it and still open lost their ends).
  void end(Place place, uint64_t ts, int64_t result);

  // A leaf I/O ended on `tid`: its time goes to every request open there. `waterfall` makes
  // its waterfall, asked only when an outermost request keeps it.
  void add_leaf(int32_t tid, char op, const LeafOutcome& outcome,
                const std::function<Waterfall()>& waterfall);

  // The stream ended: what is still open is unfinished.
  void finish();

  // The request on `tid` whose leaf is `leaf` is not a leaf any more (system calls are).
  void forget_leaf(int32_t tid, uint64_t leaf);

 private:
  // Drops the requests on `tid`'s stack from `index` up (their ends were lost).
  void drop_from(int32_t tid, size_t index);
  void forget_key(const ProviderRequest& request);

  LevelAccounts& accounts_;
  std::function<void(const ProviderRequest&)> dropped_;
  std::unordered_map<int32_t, std::vector<ProviderRequest>> stacks_;  // by thread
  std::map<std::pair<uint32_t, uint64_t>, int32_t> by_key_;           // (level, key) -> thread
  uint64_t next_id_ = 1;
};

}  // namespace iotap::engine
