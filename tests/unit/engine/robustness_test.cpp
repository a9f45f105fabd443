// Streams no kernel would write: random kinds, addresses, devices and times, cut anywhere. The
// engine must neither crash nor keep what nothing refers to.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

TEST(Robustness, RandomStreamsAreSurvived) {
  std::mt19937_64 random(1);
  for (int round = 0; round < 20; ++round) {
    Stream s;
    uint64_t t = 0;
    for (int i = 0; i < 5000; ++i) {
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
    const Result r = engine.finish();
    EXPECT_GT(r.events, 0U);
    EXPECT_LE(r.slowest.size(), 4U);
    double shares = 0;
    for (const auto& layer : r.layers) shares += layer.share;
    if (r.requests.count > 0) {
      EXPECT_NEAR(shares, 1, 0.05);
    }
  }
}

}  // namespace
}  // namespace iotap::engine::testing
