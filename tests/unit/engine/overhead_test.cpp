// What the probes cost, beside each report: the hits are the stream's events and stap's skipped
// probes; the time is hits x the cost measured for the target, its share of the stream's span.
#include "iotap/report/overhead.h"

#include <gtest/gtest.h>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

// Two reads 100 ms apart on one ram disk: 8 events over 100.05 ms, and 2 probes stap skipped.
Result two_reads() {
  Stream s;
  for (uint64_t k = 0; k < 2; ++k) {
    const uint64_t t = k * 100 * kMs;
    s.rs(t, 0, 100, k + 1, k * 4096)
        .q(t + kUs, 0, 100, 0xa0 + k, ram(0), k * 8, 4096)
        .c(t + 40 * kUs, 0, 0, 0xa0 + k)
        .rd(t + 50 * kUs, 0, 100, k + 1);
  }
  Engine engine({device("ram0", ram(0), "ram", "")}, Options{});
  engine.feed(s.text());
  engine.note_stap_warning("WARNING: Number of errors: 0, skipped probes: 2\n");
  return engine.finish();
}

TEST(Overhead, HitsAreTheEventsAndTheSkippedProbesAndTheTimeIsTheirMeasuredCost) {
  const Result result = two_reads();
  EXPECT_EQ(result.span_ns, 100 * kMs + 50 * kUs);
  const report::Overhead overhead = report::overhead(result, 1'000'000.0);  // 1 ms per hit
  EXPECT_EQ(overhead.probe_hits, 8U + 2U);
  EXPECT_EQ(overhead.skipped_probes, 2U);
  ASSERT_TRUE(overhead.seconds && overhead.share);
  EXPECT_DOUBLE_EQ(*overhead.seconds, 0.010);
  EXPECT_NEAR(*overhead.share, 0.010 / 0.10005, 1e-9);
  EXPECT_EQ(report::overhead_line(overhead),
            "overhead: 10 probe hits, 2 skipped, ~0.01 s (10% of the run at 1000 us per hit)\n");
  const auto json = report::overhead_json(overhead);
  EXPECT_EQ(json["probe_hits"], 10);
  EXPECT_EQ(json["skipped_probes"], 2);
  EXPECT_DOUBLE_EQ(json["seconds"].get<double>(), 0.010);
}

TEST(Overhead, WithoutAMeasuredCostOnlyTheHitsAreReported) {
  const report::Overhead overhead = report::overhead(two_reads(), std::nullopt);
  EXPECT_EQ(report::overhead_line(overhead),
            "overhead: 10 probe hits, 2 skipped (the cost of a hit is not measured for this "
            "target)\n");
  const auto json = report::overhead_json(overhead);
  EXPECT_TRUE(json["ns_per_hit"].is_null());
  EXPECT_TRUE(json["seconds"].is_null());
  EXPECT_TRUE(json["share"].is_null());
}

}  // namespace
}  // namespace iotap::engine::testing
