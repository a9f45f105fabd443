// demo and diagnose judge by one rule: the same per-member times, fed to the engine as a stream
// and to demo as iotime.stp's table, name the same slow members.
#include <gtest/gtest.h>

#include <set>

#include "../engine/stream.h"
#include "iotap/interval/device_table.h"
#include "iotap/slow_member_rule.h"

namespace iotap::interval {
namespace {

using engine::testing::kUs;
using engine::testing::ram;

// Each member's ios all take its latency, so that mean and median agree (the table has no
// median): the engine's rule and demo's can then only differ if their thresholds do.
std::set<std::string> engine_verdict(const std::vector<uint64_t>& member_us) {
  const auto stack = engine::testing::raid0(static_cast<uint32_t>(member_us.size()));
  engine::testing::Stream s;
  uint64_t t = 0;
  uint64_t bio = 0x1000;
  for (int round = 0; round < 5; ++round) {
    for (uint32_t i = 0; i < member_us.size(); ++i) {
      ++bio;
      s.q(t, 0, 100, bio, ram(i), round * 8, 4096).c(t + member_us[i] * kUs, 0, 100, bio);
      t += member_us[i] * kUs + 10 * kUs;
    }
  }
  std::set<std::string> names;
  for (const auto& slow : engine::testing::run(stack, s.text()).slow_members)
    names.insert(slow.name);
  return names;
}

std::set<std::string> demo_verdict(const std::vector<uint64_t>& member_us) {
  const auto stack = engine::testing::raid0(static_cast<uint32_t>(member_us.size()));
  std::string table;
  for (size_t i = 0; i < member_us.size(); ++i)
    table += "ram" + std::to_string(i) + " R " + std::to_string(5 * member_us[i]) + " 5 " +
             std::to_string(member_us[i]) + "\n";
  std::set<std::string> names;
  for (const auto& slow : find_slow_members(parse_device_table(table), stack))
    names.insert(slow.device.name);
  return names;
}

TEST(DemoVerdict, AgreesWithTheEngineAroundBothThresholds) {
  // Around 3x the siblings (1 ms each), and around the 1 ms floor (siblings at 100 us).
  const std::vector<std::vector<uint64_t>> cases{
      {1000, 1000, 2000}, {1000, 1000, 2900}, {1000, 1000, 3100}, {1000, 1000, 3900},
      {1000, 1000, 4100}, {1000, 1000, 9000}, {100, 100, 400},    {100, 100, 1050},
      {100, 100, 1200},   {100, 150, 4000},   {1000, 3500, 3500}, {30, 30, 30}};
  for (const auto& member_us : cases) {
    std::string label;
    for (const auto us : member_us) label += std::to_string(us) + " us ";
    EXPECT_EQ(demo_verdict(member_us), engine_verdict(member_us)) << label;
  }
  // The cases straddle the rule: some are slow, some are not.
  EXPECT_EQ(engine_verdict({1000, 1000, 3100}), std::set<std::string>{"ram2"});
  EXPECT_TRUE(engine_verdict({1000, 1000, 2900}).empty());
  EXPECT_EQ(engine::kTimesSiblings, 3);
}

}  // namespace
}  // namespace iotap::interval
