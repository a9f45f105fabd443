#pragma once
// The one eviction rule of iotap's caches: a cache directory holds one subdirectory per entry,
// and those with the newest modification times are kept (the module cache sets an entry's time
// at each use; the shared stap runtime never touches its copies, so there it is their making).
#include <cstddef>
#include <string>

namespace iotap {

// Removes the entries of `dir` beyond the `keep` newest, and the "NAME.partial.PID"
// directories a run killed while it stored an entry left over an hour ago (a store takes
// milliseconds). Errors are ignored: eviction only saves space.
void evict_least_recently_used(const std::string& dir, size_t keep);

// The name an entry is written under before it is renamed into place, so that a concurrent
// run sees a whole entry or none.
std::string partial_entry_name(const std::string& name);

}  // namespace iotap
