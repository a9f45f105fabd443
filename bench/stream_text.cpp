// stream_text: an event stream (docs/event-format.md: text lines and binary records) on standard
// input, as text lines on standard output: what `iotap run` shows. The guest benches' rounds
// (overhead/rounds.sh, pgbench/rounds.sh) count a tracer's events with grep, iotap's too.
#include <array>
#include <cstdio>
#include <string_view>

#include "iotap/records_as_text.h"

int main() {
  iotap::engine::RecordsAsText as_text(
      [](std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); });
  std::array<char, size_t{1} << 16U> buffer{};
  for (size_t got = 0; (got = std::fread(buffer.data(), 1, buffer.size(), stdin)) > 0;)
    as_text.feed(std::string_view(buffer.data(), got));
  as_text.finish();
  return std::ferror(stdin) != 0 || std::fflush(stdout) != 0 ? 1 : 0;
}
