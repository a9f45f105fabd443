#pragma once
// Where iotap finds what it uses at run time (tapsets, examples, the guest's init, the adapted
// SystemTap runtime, the workloads) and where it caches: found from the binary's own location,
// so that an installed iotap (PREFIX/bin/iotap with PREFIX/share/iotap) and the build tree's
// (build/iotap, reading the source tree) both work without configuration.
#include <string>

namespace iotap {

struct DataPaths {
  bool installed = false;      // PREFIX/bin/iotap with PREFIX/share/iotap next to it
  std::string tapsets;         // iotap's tapsets (stap -I)
  std::string examples;        // the scripts the verbs run
  std::string providers;       // the request sources iotap ships (NAME.provider)
  std::string guest_init;      // the guest's /init
  std::string ssh_agent;       // the shell text run on a --target ssh:// host
  std::string runner_scripts;  // the shell fragments every target runs (runner/device_lines.sh)
  std::string workloads;       // WORKLOADS/block_hasher: the workloads' binaries
  std::string stapio_drain;    // preloaded into stapio: reads its relay files to the end
  std::string cache;           // guest images, the guest's tools: made once, reused
};

// The paths for the running binary, resolved on first use.
const DataPaths& data_paths();

// The paths for a binary at `executable`: the installed layout if `executable`'s directory has
// ../share/iotap/tapsets, the build tree's otherwise. `cache_home` is where an installed iotap
// caches ($XDG_CACHE_HOME, else $HOME/.cache).
DataPaths data_paths_for(const std::string& executable, const std::string& cache_home);

// SystemTap's own directory: $SYSTEMTAP_DIR, else $HOME/.systemtap (stap's rule); empty when
// neither is set. stap keys its cache (DIR/cache) by the paths of its inputs, so the inputs
// iotap makes for it that are the same bytes for every build and install of iotap (the adapted
// runtime, the guest kernel's trees) are kept here, at one path each (stap/shared_runtime.h,
// runner/kernel_tree.h), rather than in each build's or install's own cache.
std::string stap_state_dir();

}  // namespace iotap
