#include "report.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <utility>

namespace block_hasher {
namespace {

using Json = nlohmann::ordered_json;

std::string format(const char* fmt, double value) {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), fmt, value);
  return text.data();
}

// `value` rounded as `fmt` ("%.6f") rounds it: the precision the output promises (and the
// values it printed with "%.6f" and "%.3f" before it was written with nlohmann::json), without
// the digits of a double's binary expansion.
double rounded(const char* fmt, double value) {
  return std::strtod(format(fmt, value).c_str(), nullptr);
}

// 1 decimal in the largest binary unit that keeps the number >= 1.
std::string human_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " B";
  return format("%.1f ", value) + kUnits[unit];
}

std::string text_line(std::uint64_t blocks, std::uint64_t bytes, double seconds,
                      std::uint64_t errors) {
  return std::to_string(blocks) + " blocks, " + human_bytes(bytes) + " in " +
         format("%.3f", seconds) + " s, " + format("%.1f", mib_per_second(bytes, seconds)) +
         " MiB/s, " + std::to_string(errors) + " errors";
}

}  // namespace

double mib_per_second(std::uint64_t bytes, double seconds) {
  if (!(seconds > 0)) return 0;
  return static_cast<double>(bytes) / (1024.0 * 1024.0) / seconds;
}

std::string format_text(const Options& options, const RunResult& result) {
  std::string out;
  for (const ThreadResult& thread : result.threads) {
    out += "thread " + std::to_string(thread.index) + ": " +
           text_line(thread.blocks, thread.bytes, thread.seconds, thread.errors) + ", " +
           hash_name(options.hash) + " " + thread.digest + "\n";
  }
  out += "total: " + text_line(result.blocks, result.bytes, result.seconds, result.errors) + " (" +
         std::to_string(options.threads) + " threads, block size " +
         std::to_string(options.block_size) + ", " + hash_name(options.hash) +
         (options.direct ? ", O_DIRECT" : "") + ")\n";
  return out;
}

std::string format_json(const Options& options, const RunResult& result) {
  Json per_thread = Json::array();
  for (const ThreadResult& thread : result.threads) {
    per_thread.push_back(
        {{"thread", thread.index},
         {"tid", thread.tid},
         {"blocks", thread.blocks},
         {"bytes", thread.bytes},
         {"seconds", rounded("%.6f", thread.seconds)},
         {"mb_per_s", rounded("%.3f", mib_per_second(thread.bytes, thread.seconds))},
         {"errors", thread.errors},
         {"digest", thread.digest}});
  }
  const Json json{{"device", options.device},
                  {"block_size", options.block_size},
                  {"threads", options.threads},
                  {"blocks", result.blocks},
                  {"requested_blocks", result.planned_blocks},
                  {"bytes", result.bytes},
                  {"hash", hash_name(options.hash)},
                  {"direct", options.direct},
                  {"seconds", rounded("%.6f", result.seconds)},
                  {"mb_per_s", rounded("%.3f", mib_per_second(result.bytes, result.seconds))},
                  {"errors", result.errors},
                  {"per_thread", std::move(per_thread)}};
  // A device path is whatever bytes the user gave: those that are not UTF-8 become U+FFFD, so
  // the output stays JSON.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace block_hasher
