// A provider file of a user's own, for real in the guest (docs/providers.md): the script iotap
// writes for tests/unit/provider/usdt_requests.provider, run with `iotap run` against the
// program it describes, prints one batch (paired by thread, with its text) holding one read per
// pread (paired by id), each read holding its pread64 system call, and that call its bios. The
// ground truth is what the program was asked to do (COUNT reads of SIZE bytes, one after the
// other, on one thread) and what it says it did.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "iotap/util/files.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using Line = std::vector<std::string>;
using ProviderTest = VmFixture;

constexpr int kReads = 8;
constexpr int kSize = 65536;

// The stream's lines of the kinds this test reads, by time (TS), then CPU and SEQ (the event's
// number on its CPU): one thread's events in the order it made them.
std::vector<Line> events_in_order(const std::string& out) {
  std::vector<Line> events;
  for (const char* kind : {"PB", "PT", "PE", "SS", "SD", "Q"})
    for (auto& line : lines_starting_with(out, kind)) events.push_back(std::move(line));
  const auto key = [](const Line& e) {
    return std::make_tuple(std::stoull(e[1]), std::stoi(e[2]), std::stoull(e[3]));
  };
  std::sort(events.begin(), events.end(),
            [&](const Line& a, const Line& b) { return key(a) < key(b); });
  return events;
}

TEST_F(ProviderTest, AUsersProviderFilePrintsItsNestedRequestsTheirCallsAndBios) {
  const Captured script = iotap({"providers", USDT_REQUESTS_PROVIDER, "--script"});
  ASSERT_EQ(script.status.code, 0) << script.err;
  TempDir work("iotap-provider-test");
  const std::string path = work / "usdt_requests.stp";
  write_file(path, script.out);

  const Captured run = iotap({"run", path, "--target", "vm", "--stack", "raid0(ram*2)", "-c",
                              std::string(USDT_REQUESTS) + " __DEV__ " + std::to_string(kReads) +
                                  " " + std::to_string(kSize)});
  ASSERT_EQ(run.status.code, 0) << run.err;
  ASSERT_NE(run.out.find("8 of 8 reads of 65536 bytes"), std::string::npos) << run.out;
  // stap skips a hit that finds another handler holding a lock it needs (iotap_cli.h): the
  // raw syscall probes fire for every process in the guest, so a skip is most likely none of
  // this program's; if one of its lines was lost, the checks below fail and say so.
  const int skipped = skipped_probes(run);
  SCOPED_TRACE("stap skipped " + std::to_string(skipped) + " probe hits");

  const auto events = events_in_order(run.out);
  // The batch: one PB at level 0 (KEY 0, op -), its text with the tab as a space, one PE whose
  // result is the reads that returned SIZE bytes.
  const auto batch_begins = lines_starting_with(run.out, "PB");
  ASSERT_FALSE(batch_begins.empty());
  const std::string tid = batch_begins.front()[4];
  EXPECT_EQ(batch_begins.front(),
            (Line{"PB", batch_begins.front()[1], batch_begins.front()[2], batch_begins.front()[3],
                  tid, "0", "0", "-", "0", "0", "0"}));
  const auto texts = lines_starting_with(run.out, "PT");
  ASSERT_EQ(texts.size(), 1U) << run.out;
  EXPECT_EQ(std::vector<std::string>(texts[0].begin() + 4, texts[0].end()),
            (Line{tid, "0", "0", "a", "batch", "of", "8", "reads", "with", "a", "tab"}));

  // Each read, in order: PB (level 1, KEY = id) -> SS pread64 at its offset -> a bio queued by
  // its thread -> SD with SIZE -> PE (level 1, KEY = id, RESULT = SIZE).
  int read = 0;
  int bios_in_read = 0;
  std::string state = "batch";
  for (const Line& e : events) {
    if (e[4] != tid) continue;  // the program has one thread: anything else is not its
    const std::string id = std::to_string(read + 1);
    if (e[0] == "PB" && e[5] == "1") {
      ASSERT_EQ(state, "batch") << "read " << id;
      EXPECT_EQ(Line(e.begin() + 5, e.end()),
                (Line{"1", id, "R", "0", std::to_string(read * kSize), std::to_string(kSize)}));
      state = "read";
      bios_in_read = 0;
    } else if ((e[0] == "SS" || e[0] == "SD") && (state == "batch" || state == "done")) {
      // The traced program's own calls outside a read (the loader reading its libraries with
      // read and pread64) are followed as for any program; none of them reads the device
      // (which the program opened with O_DIRECT: DIRECT, the last field, 1).
      EXPECT_FALSE(e[0] == "SS" && e.back() == "1") << "a read of the device outside a read";
    } else if (e[0] == "SS") {
      ASSERT_EQ(state, "read") << "a system call inside a call, seq " << e[3];
      EXPECT_EQ(e[5], "pread64");
      EXPECT_EQ(e[8], std::to_string(read * kSize)) << "its offset";
      EXPECT_EQ(e[9], std::to_string(kSize));
      state = "call";
    } else if (e[0] == "Q" && state == "call") {
      ++bios_in_read;
    } else if (e[0] == "SD") {
      ASSERT_EQ(state, "call");
      EXPECT_EQ(e[5], std::to_string(kSize));
      state = "returned";
    } else if (e[0] == "PE" && e[5] == "1") {
      ASSERT_EQ(state, "returned") << "read " << id;
      EXPECT_EQ(Line(e.begin() + 5, e.end()), (Line{"1", id, std::to_string(kSize)}));
      EXPECT_GE(bios_in_read, 1) << "O_DIRECT: read " << id << " reached the stack";
      state = "batch";
      ++read;
    } else if (e[0] == "PE" && e[5] == "0") {
      EXPECT_EQ(Line(e.begin() + 5, e.end()), (Line{"0", "0", std::to_string(kReads)}));
      state = "done";
    }
  }
  EXPECT_EQ(read, kReads);
  EXPECT_EQ(state, "done");
}

// attribute --requests usdt:FILE: the same provider chosen by its file, held to the program,
// its script written and compiled under the provider's name, run like any other. (What the
// engine makes of PB/PT/PE is its own: this checks the launcher's part.)
TEST_F(ProviderTest, AttributeFollowsAProviderFileNamedOnTheCommandLine) {
  const Captured run =
      iotap({"attribute", "--json", "--requests", std::string("usdt:") + USDT_REQUESTS_PROVIDER,
             "--target", "vm", "--stack", "raid0(ram*2)", "-c",
             std::string(USDT_REQUESTS) + " __DEV__ 4 65536"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_NE(run.err.find("following usdt_requests's batches through its USDT probes (provider "
                         "usdt_requests: batch, read)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("usdt_requests.stp"), std::string::npos)
      << "the generated script is named after its provider: " << run.err;
  EXPECT_NE(run.out.find("\"source\": \"usdt\""), std::string::npos) << run.out;
}

}  // namespace
}  // namespace iotap::test
