#pragma once
// Temp dirs of iotap runs that died without cleaning up (SIGKILL, a crash, a power cut): a
// guest's images and a compiled module, some 37 MB a run. Each run removes those of dead runs
// when it starts (main.cpp), so they never pile up.
#include <cstdint>
#include <string>

namespace iotap {

struct RemovedLeftovers {
  int dirs = 0;
  uint64_t bytes = 0;  // disk space they took (allocated blocks: sparse images count as used)
};

// Removes the directories in `base` named like the temp dirs iotap makes
// (iotap-run.PID.XXXXXX, iotap-vm.PID.XXXXXX, see util/temp_dir.h) that belong to this user
// and whose run is over: PID is not a live process named iotap, and no process holds the
// directory's lock. A run that is still going keeps its dirs, whichever pid namespace it is in.
RemovedLeftovers remove_leftovers(const std::string& base);

// remove_leftovers($TMPDIR), and a line on stderr when it removed something:
// "iotap: removed 2 leftover temp dirs of dead iotap runs (37 MB)". Never fails: a TMPDIR that
// cannot be read is reported by whatever needs it.
void remove_leftovers_and_say();

// "37 MB", "812 kB", "1.2 GB".
std::string human_bytes(uint64_t bytes);

}  // namespace iotap
