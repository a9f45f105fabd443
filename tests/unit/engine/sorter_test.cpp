#include "sorter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace iotap::engine {
namespace {

Event at(uint32_t cpu, uint64_t seq, uint64_t ts) {
  Event e;
  e.cpu = cpu;
  e.seq = seq;
  e.ts = ts;
  return e;
}

// Each CPU's events in order, the CPUs interleaved in random bursts of up to `longest` (as
// staprun delivers them), after `arrival`'s own start.
void interleave(std::vector<Event>& arrival, const std::vector<std::vector<Event>>& cpus,
                std::vector<size_t> next, size_t longest, std::mt19937& random) {
  size_t total = arrival.size();
  for (size_t cpu = 0; cpu < cpus.size(); ++cpu) total += cpus[cpu].size() - next[cpu];
  while (arrival.size() < total) {
    const size_t cpu = random() % cpus.size();
    const size_t burst = 1 + random() % longest;
    for (size_t i = 0; i < burst && next[cpu] < cpus[cpu].size(); ++i)
      arrival.push_back(cpus[cpu][next[cpu]++]);
  }
}

// Every event through a sorter with a wide window: what comes out, in order.
std::vector<Event> sort_all(const std::vector<Event>& arrival, Sorter& sorter) {
  std::vector<Event> out;
  for (const Event& e : arrival) sorter.push(e, [&](const Event& r) { out.push_back(r); });
  sorter.flush([&](const Event& r) { out.push_back(r); });
  return out;
}

TEST(Sorter, MergesInterleavedCpusByTime) {
  // Each CPU in order, the CPUs interleaved arbitrarily (as staprun delivers them).
  std::mt19937 random(7);
  std::vector<std::vector<Event>> cpus(4);
  for (uint32_t cpu = 0; cpu < 4; ++cpu) {
    uint64_t ts = 1000;
    for (uint64_t seq = 1; seq <= 500; ++seq) {
      ts += 1 + random() % 5000;
      cpus[cpu].push_back(at(cpu, seq, ts));
    }
  }
  std::vector<Event> arrival;
  interleave(arrival, cpus, std::vector<size_t>(4, 0), 30, random);

  Sorter sorter(50'000'000, 1'000'000);
  const std::vector<Event> out = sort_all(arrival, sorter);
  ASSERT_EQ(out.size(), 2000U);
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(),
                             [](const Event& a, const Event& b) { return a.ts < b.ts; }));
  EXPECT_EQ(sorter.stats().sequence_gaps, 0U);
  EXPECT_EQ(sorter.stats().late_events, 0U);
}

TEST(Sorter, SixtyFourCpusMergeByTimeAndTiesGoInTheOrderTheCpusWereFirstSeen) {
  // Times drawn from a few values, so that many events tie; the CPUs first seen in a shuffled
  // order. Ties go out in that order, whatever order the CPUs hold them in.
  constexpr uint32_t kCpus = 64;
  std::mt19937 random(11);
  std::vector<uint32_t> first_seen(kCpus);
  for (uint32_t cpu = 0; cpu < kCpus; ++cpu) first_seen[cpu] = cpu;
  std::shuffle(first_seen.begin(), first_seen.end(), random);
  std::vector<uint32_t> rank(kCpus);
  for (uint32_t r = 0; r < kCpus; ++r) rank[first_seen[r]] = r;

  std::vector<std::vector<Event>> cpus(kCpus);
  for (uint32_t cpu = 0; cpu < kCpus; ++cpu) {
    uint64_t ts = 1000;
    for (uint64_t seq = 1; seq <= 100; ++seq) {
      ts += random() % 3 * 1000;  // 0, 1 or 2 us on: ties within a CPU and across CPUs
      cpus[cpu].push_back(at(cpu, seq, ts));
    }
  }
  std::vector<Event> arrival;
  arrival.reserve(size_t{kCpus} * 100);
  for (const uint32_t cpu : first_seen) arrival.push_back(cpus[cpu][0]);
  interleave(arrival, cpus, std::vector<size_t>(kCpus, 1), 10, random);

  Sorter sorter(50'000'000, 1'000'000);
  const std::vector<Event> out = sort_all(arrival, sorter);
  ASSERT_EQ(out.size(), size_t{kCpus} * 100);
  for (size_t i = 1; i < out.size(); ++i) {
    const Event& a = out[i - 1];
    const Event& b = out[i];
    ASSERT_LE(a.ts, b.ts) << "event " << i;
    if (a.ts == b.ts && a.cpu != b.cpu) {
      ASSERT_LT(rank[a.cpu], rank[b.cpu]) << "a tie at event " << i << " out of first-seen order";
    }
    if (a.cpu == b.cpu) {
      ASSERT_LT(a.seq, b.seq) << "a CPU's own order changed at event " << i;
    }
  }
  EXPECT_EQ(sorter.stats().late_events, 0U);
}

TEST(Sorter, HoldsEachEventForTheWindow) {
  Sorter sorter(/*window_ns=*/100, /*window_events=*/1'000'000);
  std::vector<uint64_t> out;
  const auto emit = [&](const Event& e) { out.push_back(e.ts); };
  sorter.push(at(0, 1, 10), emit);
  sorter.push(at(1, 1, 30), emit);
  sorter.push(at(2, 1, 20), emit);  // a CPU first seen now, with an older event
  EXPECT_TRUE(out.empty());
  sorter.push(at(0, 2, 125), emit);  // 10 and 20 are now a window old
  EXPECT_EQ(out, (std::vector<uint64_t>{10, 20}));
  EXPECT_EQ(sorter.held(), 2U);
  sorter.flush(emit);
  EXPECT_EQ(out, (std::vector<uint64_t>{10, 20, 30, 125}));
}

TEST(Sorter, WindowBoundsWhatIsHeldWhenACpuFallsSilent) {
  // CPU 1 speaks once and never again: CPU 0's events must not wait for it forever.
  Sorter sorter(/*window_ns=*/1000, /*window_events=*/1'000'000);
  size_t released = 0;
  const auto emit = [&](const Event&) { ++released; };
  sorter.push(at(1, 1, 0), emit);
  size_t most_held = 0;
  for (uint64_t i = 1; i <= 10'000; ++i) {
    sorter.push(at(0, i, i * 100), emit);
    most_held = std::max(most_held, sorter.held());
  }
  EXPECT_LE(most_held, 11U);  // 1000 ns of events at one per 100 ns
  sorter.flush(emit);
  EXPECT_EQ(released, 10'001U);
}

TEST(Sorter, EventCountBoundsWhatIsHeld) {
  Sorter sorter(/*window_ns=*/UINT64_MAX / 2, /*window_events=*/64);
  size_t most_held = 0;
  sorter.push(at(1, 1, 0), [](const Event&) {});
  for (uint64_t i = 1; i <= 1000; ++i) {
    sorter.push(at(0, i, i), [](const Event&) {});
    most_held = std::max(most_held, sorter.held());
  }
  EXPECT_EQ(most_held, 64U);
}

TEST(Sorter, CountsSequenceGapsPerCpu) {
  Sorter sorter(0, 1);
  const auto ignore = [](const Event&) {};
  sorter.push(at(0, 1, 1), ignore);
  sorter.push(at(0, 2, 2), ignore);
  sorter.push(at(1, 1, 3), ignore);
  sorter.push(at(0, 5, 4), ignore);  // 3 and 4 lost
  sorter.push(at(1, 2, 5), ignore);  // CPU 1 is its own count
  sorter.push(at(2, 3, 6), ignore);  // CPU 2's 1 and 2 lost
  sorter.push(at(0, 9, 7), ignore);  // 6, 7, 8 lost
  EXPECT_EQ(sorter.stats().sequence_gaps, 3U);
  EXPECT_EQ(sorter.stats().events_lost, 7U);
}

TEST(Sorter, CountsEventsArrivingAfterTheirTimeWasReleased) {
  Sorter sorter(/*window_ns=*/10, /*window_events=*/1000);
  std::vector<uint64_t> out;
  const auto emit = [&](const Event& e) { out.push_back(e.ts); };
  sorter.push(at(0, 1, 100), emit);
  sorter.push(at(1, 1, 200), emit);
  sorter.push(at(0, 2, 300), emit);
  sorter.push(at(2, 1, 150), emit);  // 200 is already out
  sorter.flush(emit);
  EXPECT_EQ(sorter.stats().late_events, 1U);
  EXPECT_EQ(out.size(), 4U);
}

}  // namespace
}  // namespace iotap::engine
