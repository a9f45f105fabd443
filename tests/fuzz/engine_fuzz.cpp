// libFuzzer target for the correlation engine through its public header: arbitrary bytes as
// the event stream of docs/event-format.md, fed in pieces that cut lines anywhere, over a stack
// with md and dm levels (the golden trace `nested`: raid0(ram*3, linear(delay(ram, 20ms)))),
// then the results rendered as text and JSON. Lines starting "WARNING:" also go to
// note_stap_warning, as SystemTap's stderr would.
//
// The reorder window is small (32 events, 2 ms) so that short inputs reach the sorter's
// eviction, late-event and loss paths, not just its final flush.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engine/stream.h"  // tests/unit: the engine tests' stack helpers
#include "iotap/engine.h"
#include "iotap/report.h"
#include "iotap/util/json_text.h"

namespace {

using iotap::make_dev;
using iotap::StackDevice;
using iotap::engine::testing::device;

std::vector<StackDevice> nested_stack() {
  std::vector<StackDevice> stack{
      device("md0", make_dev(9, 0), "raid0(ram*3,linear(delay(ram,20ms)))", "")};
  stack[0].md_level = "raid0";
  stack[0].chunk_bytes = 524288;
  stack[0].md_members = {{"ram0", 4096}, {"ram1", 4096}, {"ram2", 4096}, {"dm-1", 4096}};
  for (uint32_t i = 0; i < 3; ++i) {
    stack.push_back(device("ram" + std::to_string(i), make_dev(1, i), "ram", "md0"));
  }
  stack.push_back(device("dm-1", make_dev(254, 1), "linear(delay(ram,20ms))", "md0"));
  stack.back().dm_table = {"0 131072 linear 254:0 0"};
  stack.push_back(device("dm-0", make_dev(254, 0), "delay(ram,20ms)", "dm-1"));
  stack.back().dm_table = {"0 131072 delay 1:3 0 20"};
  stack.push_back(device("ram3", make_dev(1, 3), "ram", "dm-0"));
  return stack;
}

// What the results promise whatever the input; a broken promise is a bug worth a crash.
void check(const iotap::engine::Result& result, size_t slowest) {
  if (result.layers.size() != 5 || result.slowest.size() > slowest) std::abort();
  const auto finite = [](double v) { return std::isfinite(v) && v >= 0; };
  if (!finite(result.requests.mean_us) || !finite(result.requests.max_us)) std::abort();
  for (const auto& layer : result.layers) {
    if (!finite(layer.mean_us) || !finite(layer.share)) std::abort();
  }
  for (const auto& d : result.devices) {
    if (!finite(d.latency.mean_us) || !finite(d.exclusive_us)) std::abort();
  }
  // A level's time split adds up to its requests' time (to rounding), each part 0 or more.
  for (const auto& level : result.levels) {
    const auto& t = level.time;
    if (!finite(t.reads_stack_us) || !finite(t.reads_cache_us) || !finite(t.writes_us) ||
        !finite(t.other_us))
      std::abort();
    const double total = level.latency.mean_us * static_cast<double>(level.count);
    const double parts = t.reads_stack_us + t.reads_cache_us + t.writes_us + t.other_us;
    if (std::abs(parts - total) > 1e-6 * std::max(1.0, total) + 1) std::abort();
  }
  const auto share = [](double v) { return std::isfinite(v) && v >= 0 && v <= 1 + 1e-9; };
  if (!share(result.slowest_time.reads_share) || !share(result.slowest_time.stack_share))
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  iotap::engine::Options options;
  options.slowest = 3;
  options.reorder_window_ns = 2'000'000;
  options.reorder_window_events = 32;
  iotap::engine::Engine engine(nested_stack(), options);

  // Pieces of 1, 13 and 509 bytes in turn: lines straddle feed() calls at every position.
  constexpr size_t kPieces[] = {1, 13, 509};
  size_t piece = 0;
  for (size_t at = 0; at < text.size(); ++piece) {
    const size_t n = kPieces[piece % 3];
    engine.feed(text.substr(at, n));
    at += n;
  }
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    if (line.starts_with("WARNING:")) engine.note_stap_warning(line);
    at = end + 1;
  }

  const iotap::engine::Result result = engine.finish();
  check(result, options.slowest);
  const std::string report = iotap::report::text(result, true);
  // As the verbs print it (to_text: a byte that is not UTF-8, in a query's text say, replaced):
  // a plain dump() throws on one.
  const std::string json = iotap::to_text(iotap::report::json(result));
  if (report.empty() || json.empty()) std::abort();
  return 0;
}
