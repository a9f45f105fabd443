// tapsets/mddwarf_*.stp in the guest, with the kernel's debuginfo: what raid0, raid1 and dm
// decided for each bio, checked against the block layer's own block_bio_remap tracepoint (which
// says where each bio went without DWARF) and against the stack iotap built.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using Words = std::vector<std::string>;

// (from device, from sector, to device, to sector) of every read block_bio_remap reported.
std::set<std::tuple<std::string, std::string, std::string, std::string>> remaps(
    const std::string& out) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> all;
  for (const auto& f : lines_starting_with(out, "remap")) all.emplace(f[1], f[2], f[3], f[4]);
  return all;
}

class MdDwarfTest : public VmFixture {
 protected:
  Captured run(const std::string& stack, const std::string& command) {
    const std::string script = VM_SCRIPTS_DIR "/scripts/mddwarf.stp";
    return iotap({"run", script, "--target", "vm", "--stack", stack, "-c", command});
  }
};

// raid0 over three ram disks and a delayed one, all 64 MiB (one zone), 512 KiB chunks: every
// piece raid0 mapped went where block_bio_remap saw it go, to the member chunk % 4 names, and
// dm-delay is named as the target under dm-0, with the delayed disk's length.
TEST_F(MdDwarfTest, Raid0MapsEachChunkAndDmNamesItsTarget) {
  const auto result = run("raid0(ram:64M*3, delay(ram:64M, 5ms))",
                          "block_hasher -d __DEV__ -b 1048576 -t 4 -n 32 --direct");
  ASSERT_EQ(result.status.code, 0) << result.err;
  const auto seen = remaps(result.out);
  const Words members{"ram0", "ram1", "ram2", "dm-0"};
  const auto maps = lines_starting_with(result.out, "map");
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int> mapped;
  // Pieces raid0 mapped that block_bio_remap did not report: only the hits stap skipped (the
  // remap handler reads a global the queue handler writes; under software emulation a vCPU set
  // aside holding its lock makes the other skip).
  std::string unseen;
  int unseen_count = 0;
  for (const auto& f : maps) {
    // map ARRAY ARRAY_SECTOR MEMBER MEMBER_SECTOR ZONE CHUNK CHUNK_SECTORS MEMBER_INDEX
    ASSERT_EQ(f.size(), 9U);
    EXPECT_EQ(f[1], "md0");
    if (!seen.contains({f[1], f[2], f[3], f[4]})) {
      ++unseen_count;
      unseen += "  md0 sector " + f[2] + " to " + f[3] + " sector " + f[4] + "\n";
    }
    EXPECT_EQ(f[5], "0") << "one zone: the members are the same size";
    EXPECT_EQ(f[7], "1024") << "512 KiB chunks";
    EXPECT_EQ(std::stoull(f[6]), std::stoull(f[2]) / 1024);
    const auto index = std::stoul(f[8]);
    EXPECT_EQ(index, std::stoull(f[6]) % 4);
    ASSERT_LT(index, members.size());
    EXPECT_EQ(f[3], members[index]);
    ++mapped[{f[1], f[2], f[3], f[4]}];
  }
  // Every piece md0 sent on was mapped, but for the hits stap had to skip.
  int md0_remaps = 0;
  for (const auto& f : lines_starting_with(result.out, "remap"))
    md0_remaps += f[1] == "md0" ? 1 : 0;
  // Either probe can be the one skipped.
  const int skipped = skipped_probes(result);
  EXPECT_LE(unseen_count, skipped)
      << "raid0 mapped these where block_bio_remap did not see them go, " << skipped
      << " hits skipped:\n"
      << unseen << result.err;
  EXPECT_GE(md0_remaps + skipped, 64) << "32 reads of 1 MiB, two 512 KiB chunks each, or more";
  EXPECT_LE(std::abs(md0_remaps - static_cast<int>(maps.size())), skipped) << result.err;
  std::set<std::string> members_used;
  for (const auto& [piece, count] : mapped) members_used.insert(std::get<2>(piece));
  EXPECT_EQ(members_used.size(), 4U);

  const auto targets = lines_starting_with(result.out, "target");
  EXPECT_FALSE(targets.empty()) << result.out;
  for (const auto& f : targets) {
    // target DEVICE TYPE BEGIN SECTORS SECTOR SIZE
    ASSERT_EQ(f.size(), 7U);
    EXPECT_EQ(f[1], "dm-0");
    EXPECT_EQ(f[2], "delay");
    EXPECT_EQ(f[3], "0");
    EXPECT_EQ(f[4], std::to_string(64 * 1024 * 1024 / 512)) << "ram:64M in sectors";
    EXPECT_TRUE(std::any_of(seen.begin(), seen.end(),
                            [&](const auto& remap) {
                              return std::get<0>(remap) == "dm-0" && std::get<1>(remap) == f[5] &&
                                     std::get<2>(remap) == "ram3";
                            }))
        << "dm-0 sector " << f[5] << " never reached ram3";
  }
}

// raid1 with a fast leg and a delayed one: every read's leg is the one block_bio_remap saw
// the read go to, the reason agrees with the legs' state at the choice, and the fast leg
// serves more reads than the delayed one.
TEST_F(MdDwarfTest, Raid1SaysWhichLegEachReadUsedAndWhy) {
  const auto result = run("raid1(ram:64M, delay(ram:64M, 20ms))",
                          "block_hasher -d __DEV__ -b 65536 -t 4 -n 64 --direct");
  ASSERT_EQ(result.status.code, 0) << result.err;
  const auto seen = remaps(result.out);
  const auto legs = lines_starting_with(result.out, "leg");
  // A hit stap skipped (its lock taken by a CPU the host has not scheduled, as with two guests
  // on two host CPUs) is a leg line missing, and said: the count is exact less the skips.
  EXPECT_GE(legs.size() + static_cast<size_t>(skipped_probes(result)), 64U)
      << result.out << result.err;
  std::map<std::string, int> per_leg;
  int changed = 0;
  // Reads whose leg block_bio_remap did not report: only the hits stap skipped, as for raid0.
  std::string unseen;
  int unseen_count = 0;
  for (const auto& f : legs) {
    // leg ARRAY SECTOR SECTORS LEG REASON ERROR NAME:pending=P,distance=D[,sequential]...
    ASSERT_GE(f.size(), 9U);
    EXPECT_EQ(f[1], "md0");
    EXPECT_EQ(f[6], "0");
    if (!std::any_of(seen.begin(), seen.end(), [&](const auto& remap) {
          return std::get<0>(remap) == "md0" && std::get<1>(remap) == f[2] &&
                 std::get<2>(remap) == f[4];
        })) {
      ++unseen_count;
      unseen += "  md0 sector " + f[2] + " from " + f[4] + "\n";
    }
    long min_pending = -1;
    long chosen_pending = -1;
    bool chosen_sequential = false;
    for (size_t i = 7; i < f.size(); ++i) {
      const std::string& leg = f[i];
      const std::string name = leg.substr(0, leg.find(':'));
      const long pending = std::stol(leg.substr(leg.find("pending=") + 8));
      const long distance = std::stol(leg.substr(leg.find("distance=") + 9));
      if (min_pending < 0 || pending < min_pending) min_pending = pending;
      if (name == f[4]) {
        chosen_pending = pending;
        chosen_sequential = leg.find(",sequential") != std::string::npos || distance == 0;
      }
    }
    ASSERT_GE(chosen_pending, 0) << "the chosen leg is not among the legs: " << f[4];
    if (f[5] == "sequential") {
      EXPECT_TRUE(chosen_sequential) << f[2];
    }
    if (f[5] == "least-pending") {
      EXPECT_EQ(chosen_pending, min_pending) << f[2];
    }
    EXPECT_NE(f[5], "only-choice") << "two legs in sync";
    changed += f[5] == "state-changed" ? 1 : 0;
    ++per_leg[f[4]];
  }
  const int skipped = skipped_probes(result);
  EXPECT_LE(unseen_count, skipped) << "raid1 read these where block_bio_remap did not see them go, "
                                   << skipped << " hits skipped:\n"
                                   << unseen << result.err;
  // The legs' state moves between the probe's reading and raid1's when a read on another CPU
  // starts or ends meanwhile: now and then on a busy host, never for most reads.
  EXPECT_LT(changed * 4, static_cast<int>(legs.size())) << result.out;
  EXPECT_GT(per_leg["ram0"], per_leg["dm-0"]) << result.out;
}

}  // namespace
}  // namespace iotap::test
