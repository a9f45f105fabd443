// Streams no kernel would write: random kinds, addresses, devices and times, cut anywhere. The
// engine must neither crash nor keep what nothing refers to.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

// `events` random lines over a few addresses, requests and devices, fed in random cuts.
Result run_random_stream(std::mt19937_64& random, int events) {
  Stream s;
  uint64_t t = 0;
  for (int i = 0; i < events; ++i) {
    t += random() % (2 * kMs);
    const auto cpu = static_cast<uint32_t>(random() % 3);
    const int tid = 100 + static_cast<int>(random() % 4);
    const uint64_t bio = 0xa0 + random() % 12;
    const uint64_t other = 0xa0 + random() % 12;
    const uint32_t dev = std::array<uint32_t, 4>{kMd0, ram(0), ram(1), dm(0)}[random() % 4];
    const uint64_t sector = (random() % 8) * 256;
    switch (random() % 8) {
      case 0:
        s.rs(t, cpu, tid, 1 + random() % 6, sector * 512);
        break;
      case 1:
        s.rd(t, cpu, tid, 1 + random() % 6);
        break;
      case 2:
        s.q(t, cpu, tid, bio, dev, sector, 4096 * (1 + random() % 64));
        break;
      case 3:
        s.x(t, cpu, tid, bio, other, sector, 4096);
        break;
      case 4:
      case 5:
        s.m(t, cpu, tid, bio, dev, sector, 4096, kMd0, sector + random() % 300);
        break;
      case 6:
        s.c(t, cpu, tid, bio, static_cast<int>(random() % 2));
        break;
      default:
        s.raw("C " + std::to_string(t) + " 1 2");
    }
    if (random() % 100 == 0) s.lose(cpu, 1 + random() % 3);
  }
  Options options;
  options.slowest = 4;
  options.reorder_window_ns = random() % (10 * kMs);
  Engine engine(raid0(2), options);
  const std::string& text = s.text();
  for (size_t at = 0; at < text.size();) {
    const size_t n = 1 + random() % 700;
    engine.feed(std::string_view(text).substr(at, n));
    at += n;
  }
  return engine.finish();
}

TEST(Robustness, RandomStreamsAreSurvived) {
  std::mt19937_64 random(1);
  for (int round = 0; round < 20; ++round) {
    const Result r = run_random_stream(random, 5000);
    EXPECT_LE(r.slowest.size(), 4U);
    double shares = 0;
    for (const auto& layer : r.layers) shares += layer.share;
    if (r.requests.count > 0) {
      EXPECT_NEAR(shares, 1, 0.05);
    }
  }
}

// Memory is bounded by what is in flight, not by the length of the stream: ten times the
// events over the same few addresses and requests hold about as much at the peak. A node kept
// after nothing refers to it would make the peak grow with the stream.
TEST(Robustness, WhatIsHeldDoesNotGrowWithTheStream) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 short_random(seed);
    std::mt19937_64 long_random(seed);
    const Result short_run = run_random_stream(short_random, 5000);
    const Result long_run = run_random_stream(long_random, 50000);
    ASSERT_GT(short_run.stream.peak_held, 0U);
    EXPECT_GT(long_run.events, 9 * short_run.events);
    EXPECT_LT(long_run.stream.peak_held, 2 * short_run.stream.peak_held)
        << "seed " << seed << ": " << short_run.events << " events held at most "
        << short_run.stream.peak_held << ", " << long_run.events << " held "
        << long_run.stream.peak_held;
  }
}

}  // namespace
}  // namespace iotap::engine::testing
