// What block_hasher prints: a line per thread and a total line, or (--json) one JSON object
// for the launcher and the tests, written with nlohmann::json as io_replayer's and the
// launcher's are (the binary is built on the host; the guest only runs it).
#pragma once

#include <cstdint>
#include <string>

#include "options.h"
#include "run.h"

namespace block_hasher {

// "thread 3: 8 blocks, 8.0 MiB in 0.412 s, 19.4 MiB/s, 0 errors, sha1 2fd4e1c6..." per
// thread, then "total: ...". Ends with a newline.
std::string format_text(const Options& options, const RunResult& result);

// One JSON object and a newline. Keys: device, block_size, threads, blocks (full reads over
// all threads), requested_blocks, bytes, hash, direct, seconds, mb_per_s, errors, and
// per_thread: [{thread, tid, blocks, bytes, seconds, mb_per_s, errors, digest}].
// mb_per_s is in MiB (2^20 bytes) per second, like the text output, to 3 decimals; seconds to
// 6. Bytes of device that are not UTF-8 are written as U+FFFD.
std::string format_json(const Options& options, const RunResult& result);

// bytes / 2^20 / seconds, or 0 when no time was measured (JSON has no inf or nan).
double mib_per_second(std::uint64_t bytes, double seconds);

}  // namespace block_hasher
