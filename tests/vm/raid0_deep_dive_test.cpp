// The seed article's raid0 hunt as an example, run for real: the DWARF probe on the raid0 module
// fires, backtraces come out named from the guest's kallsyms, map_sector()'s own arguments say
// where each chunk goes, and every member's chunk count is there, counted twice, and its share of
// the data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using Raid0DeepDive = VmFixture;

TEST_F(Raid0DeepDive, ShowsTheRequestPathTheCompletionContextsAndEveryMembersChunks) {
  const std::string script = EXAMPLES_DIR "/raid0_deep_dive.stp";
  const auto run =
      iotap({"run", script, "--target", "vm", "--stack", "raid0(ram*7, delay(ram, 50ms))", "-c",
             "block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const std::string& out = run.out;
  // The kprobe on raid0_make_request fired, in the reading thread, on md0.
  EXPECT_NE(out.find("raid0_make_request: md0 sector"), std::string::npos) << out;
  // Its backtrace is named: the module's function, md, and the pread64 that led there. In some
  // runs stap prints the probed address twice: it prints frame 0 itself, finds no unwind data
  // for raid0, and falls back to the kernel's stack_trace_save_regs(), which starts at the same
  // address again (a return address is never +0x0, so the repeat is the artefact). On 6.12,
  // built for IBT, a function starts with endbr64 and the kprobe sits after it, at +0x4.
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(raid0_make_request\+0x[04] \[raid0\] )"
                                                R"((raid0_make_request\+0x[04] \[raid0\] )?)"
                                                R"(md_handle_request\+0x[0-9a-f]+ \[md_mod\])")))
      << out;
  EXPECT_NE(out.find("__x64_sys_pread64+"), std::string::npos) << out;
  // raid0's arithmetic from the kernel's own arguments: md0's sector, its chunk, the member.
  EXPECT_TRUE(std::regex_search(
      out, std::regex(R"(map_sector: md sector \d+ = zone 0, chunk \d+, member \d of 8 -> )"
                      R"((ram[0-6]|dm-0) sector \d+)")))
      << out;
  // A chunk through dm-0 completes in dm-delay's worker, one delay later (its function is
  // flush_expired_bios on 6.1, flush_delayed_bios from 6.9 on).
  EXPECT_TRUE(out.find("flush_expired_bios+") != std::string::npos ||
              out.find("flush_delayed_bios+") != std::string::npos)
      << out;
  EXPECT_NE(out.find("[dm_delay]"), std::string::npos) << out;
  // The table: each member's chunks, counted twice, and the KiB they carried.
  std::map<std::string, int> chunks;
  std::map<std::string, int> kib;
  int uncounted = 0;  // chunks one of the two probes saw and the other did not
  const size_t table = out.find("chunks per member");
  ASSERT_NE(table, std::string::npos) << "no \"chunks per member\" table in the output:\n" << out;
  std::istringstream lines(out.substr(table));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string member;
    int count = 0;
    int mapped = 0;
    if (!(words >> member >> count)) continue;
    chunks[member] = count;
    // The same chunks counted from map_sector()'s arguments (DWARF, the article's way) and by
    // the block_bio_remap tracepoint: the kernel's two accounts agree...
    EXPECT_TRUE(words >> mapped) << "no map_sector count for " << member << ":\n" << out;
    uncounted += std::abs(count - mapped);
    EXPECT_TRUE(words >> kib[member]) << "no KiB for " << member << ":\n" << out;
  }
  ASSERT_EQ(chunks.size(), 8U) << out;
  // ... but for the hits stap had to skip (another probe running on the same CPU), which can
  // be either probe's: a skipped remap leaves map_sector's count the higher one.
  EXPECT_LE(uncounted, skipped_probes(run)) << run.err;
  EXPECT_TRUE(chunks.contains("dm-0"));
  // Every member got its share of the data: block_hasher read 64 MiB through a stripe of 8,
  // 8 MiB each, and the partition scan of its open() a few pages more (the chunk counts need not
  // be even: how many pieces md gets a 1 MiB read in varies). A skipped remap hit loses at most
  // one piece, 512 KiB (a chunk).
  const int skipped = skipped_probes(run);
  constexpr int kShareKiB = 64 * 1024 / 8;
  constexpr int kPartitionScanKiB = 64;
  for (const auto& [member, got] : kib) {
    EXPECT_GE(got + skipped * 512, kShareKiB) << member << ", " << skipped << " hits skipped\n"
                                              << out;
    EXPECT_LE(got, kShareKiB + kPartitionScanKiB) << member << "\n" << out;
    EXPECT_GT(chunks[member], 0) << member;
  }
}

}  // namespace
}  // namespace iotap::test
