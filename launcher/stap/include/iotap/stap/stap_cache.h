#pragma once
// Whether stap's compile is likely to be the slow first one. stap caches per-kernel work in
// its cache directory ($SYSTEMTAP_DIR/cache, else ~/.systemtap/cache): the kernel's
// configuration probe (stapconf_HASH.h, about a minute on this project's machines) and the
// tracepoint queries (tracequery_HASH.o). Each cached file has a HASH_hash.log beside it that
// lists what the hash was made of, in lines like "Kernel Release: 6.1.0-56-cloud-amd64",
// "Kernel Build Tree Path: /lib/modules/.../build" and "Runtime Path: /.../stap-runtime". A
// stapconf for the same kernel and runtime means that work is done.
#include <filesystem>
#include <string>

namespace iotap::stap {

// stap_state_dir() (util/data_paths.h) + "/cache"; empty when that is.
std::string stap_cache_dir();

// True when `cache_dir` holds a finished stapconf (the .h, not just its log: an interrupted
// compile leaves only the log) for `kernel` (what iotap passes to `stap -r`: a release, or a
// build tree path) and `runtime_dir` (`stap -R`; empty: stap's own runtime, any one matches).
// False when unsure, so the worst case is a needless "the first compile takes..." hint.
bool stap_cache_is_warm(const std::string& cache_dir, const std::string& kernel,
                        const std::string& runtime_dir);

// stap caches a tracepoint query whose kbuild did not finish (stap itself stopped by a signal
// during a first compile: `pkill stap`, a shutdown) as an empty object, which means "this header
// has no tracepoints": from
// then on every compile says `kernel.trace("sched:sched_switch")`: no match. Removes the empty
// tracequery_*.o (and their hash logs) written since `since` (less a second for coarse file
// times), so that the next compile queries those headers again; an empty one that was a real
// answer is only made again. Returns how many it removed; errors are ignored.
size_t forget_unfinished_tracepoint_queries(const std::string& cache_dir,
                                            std::filesystem::file_time_type since);

}  // namespace iotap::stap
