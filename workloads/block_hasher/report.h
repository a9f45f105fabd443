// What block_hasher prints: a line per thread and a total line, or (--json) one JSON object
// for the launcher and the tests. The JSON is written by hand: the shape is small and fixed,
// and the workload must stay free of dependencies so it builds in the guest.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "options.h"
#include "run.h"

namespace block_hasher {

// "thread 3: 8 blocks, 8.0 MiB in 0.412 s, 19.4 MiB/s, 0 errors, sha1 2fd4e1c6..." per
// thread, then "total: ...". Ends with a newline.
std::string format_text(const Options& options, const RunResult& result);

// One JSON object and a newline. Keys: device, block_size, threads, blocks (full reads over
// all threads), requested_blocks, bytes, hash, direct, seconds, mb_per_s, errors, and
// per_thread: [{thread, tid, blocks, bytes, seconds, mb_per_s, errors, digest}].
// mb_per_s is in MiB (2^20 bytes) per second, like the text output.
std::string format_json(const Options& options, const RunResult& result);

// s as a JSON string literal, quotes included: escapes '"', '\\' and control characters.
std::string json_string(std::string_view s);

// bytes / 2^20 / seconds, or 0 when no time was measured (JSON has no inf or nan).
double mib_per_second(std::uint64_t bytes, double seconds);

}  // namespace block_hasher
