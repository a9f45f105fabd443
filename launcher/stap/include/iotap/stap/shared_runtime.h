#pragma once
// One path per content for iotap's adapted SystemTap runtime (`stap -R`).
//
// stap keys its cache by the runtime's path, not its bytes: the kernel's configuration probe
// (stapconf, about 10 s of kbuild) and the tracepoint queries (tracequery, about 45 s of
// kbuild on two CPUs for the block tracepoints) are made again for each new path
// (stap_cache.h). iotap's runtime lives in its build tree or its install prefix, so every
// build, clone and install paid that minute again for the same bytes, on its first compile of
// each kind of probe. The runtime is therefore copied once per content beside stap's cache,
// to $SYSTEMTAP_DIR/iotap-runtime/ID (else ~/.systemtap/iotap-runtime/ID), ID the SHA-256 of
// its files and their names, and stap is pointed there.
#include <string>

namespace iotap::stap {

// The content id of the runtime at `runtime_dir`: the SHA-256 of its files' relative paths and
// bytes. Empty when it holds no file.
std::string runtime_content_id(const std::string& runtime_dir);

// Where stap should find `runtime_dir`'s runtime: its copy under `state_dir` (stap_state_dir(),
// util/data_paths.h)
// + "/iotap-runtime/ID", made by the first run that needs it (atomically: a concurrent run sees a
// whole copy or none), and never touched after (stap's cache key holds its directories' times).
// `runtime_dir` itself when `state_dir` is empty or cannot be written: compiles are then only
// slower. Keeps the four runtimes made last (one evicted while still in use is made again).
std::string shared_runtime_dir(const std::string& runtime_dir, const std::string& state_dir);

}  // namespace iotap::stap
