#include "report.h"

#include <cstdio>

namespace block_hasher {
namespace {

std::string format(const char* fmt, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), fmt, value);
  return text;
}

// 1 decimal in the largest binary unit that keeps the number >= 1.
std::string human_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
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

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
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
  std::string out = "{";
  out += "\"device\":" + json_string(options.device);
  out += ",\"block_size\":" + std::to_string(options.block_size);
  out += ",\"threads\":" + std::to_string(options.threads);
  out += ",\"blocks\":" + std::to_string(result.blocks);
  out += ",\"requested_blocks\":" + std::to_string(result.planned_blocks);
  out += ",\"bytes\":" + std::to_string(result.bytes);
  out += ",\"hash\":" + json_string(hash_name(options.hash));
  out += std::string(",\"direct\":") + (options.direct ? "true" : "false");
  out += ",\"seconds\":" + format("%.6f", result.seconds);
  out += ",\"mb_per_s\":" + format("%.3f", mib_per_second(result.bytes, result.seconds));
  out += ",\"errors\":" + std::to_string(result.errors);
  out += ",\"per_thread\":[";
  for (std::size_t i = 0; i < result.threads.size(); ++i) {
    const ThreadResult& thread = result.threads[i];
    if (i > 0) out += ",";
    out += "{\"thread\":" + std::to_string(thread.index);
    out += ",\"tid\":" + std::to_string(thread.tid);
    out += ",\"blocks\":" + std::to_string(thread.blocks);
    out += ",\"bytes\":" + std::to_string(thread.bytes);
    out += ",\"seconds\":" + format("%.6f", thread.seconds);
    out += ",\"mb_per_s\":" + format("%.3f", mib_per_second(thread.bytes, thread.seconds));
    out += ",\"errors\":" + std::to_string(thread.errors);
    out += ",\"digest\":" + json_string(thread.digest) + "}";
  }
  out += "]}\n";
  return out;
}

}  // namespace block_hasher
