// iotap attribute and diagnose, for real, in the guest: delayed members held to the kernel's own
// account, a renamed copy of block_hasher, and one run's report as JSON, HTML and a timeline.
// (One run with a few checks is a runtime case: tests/runtime/attribution.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"
#include "perfetto_timeline.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

// The device of that spec in the result (its first), or a failure and null.
const json& device(const json& result, const std::string& spec) {
  for (const auto& d : result["devices"]) {
    if (d["spec"] == spec) return d;
  }
  static const json kNone;
  ADD_FAILURE() << "no device with spec " << spec << " in " << result["devices"].dump();
  return kNone;
}

// The one slow member of a verdict, or a failure (and null) when there is not exactly one.
const json* the_slow_member(const json& result) {
  const auto& slow = result["verdict"]["slow_members"];
  if (slow.size() != 1) {
    ADD_FAILURE() << "expected one slow member:\n" << result.dump(2);
    return nullptr;
  }
  return &slow[0];
}

void expect_nothing_lost(const json& result) {
  const auto& loss = result["loss"];
  EXPECT_EQ(loss["events_lost"], 0) << loss.dump();
  EXPECT_EQ(loss["skipped_probes"], 0) << loss.dump();
  EXPECT_EQ(loss["transport_failures"], 0) << loss.dump();
  // A stream cut at its end shows no gap: its last reads never end (docs/event-format.md).
  EXPECT_EQ(loss["unmatched_completions"], 0) << loss.dump();
  EXPECT_EQ(result["stream"]["requests_unfinished"], 0) << result["stream"].dump();
}

class AttributionTest : public VmFixture {
 protected:
  json run_json(const std::string& verb, const std::string& stack, const std::string& command) {
    const auto run = iotap({verb, "--json", "--target", "vm", "--stack", stack, "-c", command});
    EXPECT_TRUE(run.status.code == 0 || run.status.code == 1) << run.err;
    try {
      return json::parse(run.out);
    } catch (const json::exception& e) {
      ADD_FAILURE() << e.what() << "\n" << run.out << run.err;
      return {};
    }
  }
};

// 4 threads reading 32 MiB with O_DIRECT: enough reads per member for a verdict, seconds to run.
constexpr const char* kWorkload = "block_hasher -d __DEV__ -b 1048576 -t 4 -n 32 --direct";
// The run whose delayed member's mean is held to the kernel's: four times the reads, so that one
// stall of the vCPU by a busy host (seen by iotap's clock and not by the kernel's jiffies, or the
// other way round) moves the mean a quarter as much. With kWorkload's 8 or so reads of a 50 ms
// member, a fresh clone's CI run measured 76.5 ms against the kernel's 66.1 (2026-11-28).
constexpr const char* kMeasuredWorkload = "block_hasher -d __DEV__ -b 1048576 -t 4 -n 128 --direct";

struct Delayed {
  int members;
  int slot;
  int delay_ms;
};

void PrintTo(const Delayed& d, std::ostream* os) {
  *os << d.members << " members, slot " << d.slot << " delayed " << d.delay_ms << "ms";
}

class DelayedMemberTest : public AttributionTest, public ::testing::WithParamInterface<Delayed> {};

std::string delayed_stack(const Delayed& d) {
  std::string spec = "raid0(";
  for (int i = 0; i < d.members; ++i) {
    if (i > 0) spec += ", ";
    spec += i == d.slot ? "delay(ram, " + std::to_string(d.delay_ms) + "ms)" : "ram";
  }
  return spec + ")";
}

TEST_P(DelayedMemberTest, DiagnoseNamesItAndAttributeMeasuresIt) {
  const Delayed d = GetParam();
  const std::string stack = delayed_stack(d);
  const std::string delayed_spec = "delay(ram," + std::to_string(d.delay_ms) + "ms)";

  const json verdict = run_json("diagnose", stack, kWorkload);
  const json* slow = the_slow_member(verdict);
  ASSERT_NE(slow, nullptr) << stack;
  EXPECT_EQ((*slow)["spec"], delayed_spec);
  EXPECT_EQ((*slow)["parent"], "md0");
  expect_nothing_lost(verdict);

  const json attribution = run_json("attribute", stack, kMeasuredWorkload);
  const double delayed_mean = device(attribution, delayed_spec)["latency_us"]["mean"];
  int healthy = 0;
  for (const auto& dev : attribution["devices"])
    if (dev["parent"] == "md0" && dev["spec"] == "ram") ++healthy;
  ASSERT_GT(healthy, 0);
  // The guest kernel's dm-delay (6.1, HZ=250) holds bios on a jiffy timer and releases them
  // from a workqueue, so what the device really does lies between D and a few 4 ms ticks more,
  // further still when a busy host slows the guest (measured under TCG: 5 ms -> 16 ms, 10 ms ->
  // 18 ms, and 24 ms in one CI run). So the measurement is held to the delay as a floor and to
  // the guest kernel's own account of that device over the run (its diskstats before and after)
  // within two jiffies, not to a guess at the overshoot. The kernel times a bio in jiffies, read
  // at its start and its end: a tick that comes late (a vCPU descheduled on a busy host) makes
  // either read stale. A full-suite run here, clang-tidy beside the guests, measured 15.6 ms
  // where the kernel said 22.9 (10 ms delay, 6 members): one jiffy was the bound until then.
  const json& delayed_device = device(attribution, delayed_spec);
  const json& kernel = delayed_device["kernel_stats"];
  ASSERT_TRUE(kernel.is_object()) << delayed_device.dump(2);
  // On one line each, so that test.sh's digest of a failure shows the numbers.
  const std::string measured = stack + " iotap " + delayed_device["latency_us"].dump() +
                               " kernel " + kernel.dump() + " loss " + attribution["loss"].dump();
  EXPECT_EQ(kernel["reads"], delayed_device["ios"]) << measured;
  EXPECT_NEAR(delayed_mean, kernel["read_mean_us"].get<double>(), 8000) << measured;
  EXPECT_GE(delayed_mean, d.delay_ms * 1000.0) << measured;
  expect_nothing_lost(attribution);
}

INSTANTIATE_TEST_SUITE_P(RaidZero, DelayedMemberTest,
                         ::testing::Values(Delayed{8, 7, 50}, Delayed{4, 0, 5}, Delayed{3, 1, 20},
                                           Delayed{6, 3, 10}),
                         [](const auto& info) {
                           return std::to_string(info.param.members) + "members_slot" +
                                  std::to_string(info.param.slot) + "_" +
                                  std::to_string(info.param.delay_ms) + "ms";
                         });

// The program that runs is the one probed, whatever it is called: a copy of block_hasher named
// bh2 outside the build tree carries block_hasher's probes, so its reads are followed (the
// module used to probe the build tree's block_hasher, which never ran: 0 reads, "no slow
// member").
TEST_F(AttributionTest, ACopyOfBlockHasherUnderAnotherNameIsTheProgramProbed) {
  const TempDir dir("iotap-renamed-program");
  const std::string copy = dir.path() + "/bh2";
  std::filesystem::copy_file(BLOCK_HASHER, copy);
  const auto run =
      iotap({"diagnose", "--json", "--target", "vm", "--stack", "raid0(ram*3, delay(ram, 20ms))",
             "-c", copy + " -d __DEV__ -b 1048576 -t 4 -n 32 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_NE(run.err.find("following bh2's reads through its USDT probes"), std::string::npos)
      << run.err;
  const json result = json::parse(run.out);
  EXPECT_EQ(result["requests"]["source"], "usdt");
  EXPECT_EQ(result["requests"]["count"], 32) << result["requests"].dump();
  if (const json* slow = the_slow_member(result)) {
    EXPECT_EQ((*slow)["spec"], "delay(ram,20ms)");
  }
  expect_nothing_lost(result);
}

// --html for real: the page attribute writes beside its JSON says what the JSON says (the slow
// member, a histogram per device with ios, a waterfall per --slowest request), and `iotap
// report` draws the same page again from the saved JSON. (tests/golden/html_report_test.cpp
// opens such a page in Chromium.)
// One run, its report three ways: JSON, the HTML page and the Perfetto timeline.
TEST_F(AttributionTest, HtmlPageSaysWhatTheJsonSaysAndReportDrawsItAgain) {
  const TempDir out("iotap-html-vm-test");
  const std::string page_path = out / "run.html";
  const std::string json_path = out / "run.json";
  const std::string trace_path = out / "run.perfetto.json";
  const auto run =
      iotap({"attribute", "--json", "-o", json_path, "--html", page_path, "--perfetto", trace_path,
             "--slowest", "2", "--target", "vm", "--stack", "raid0(ram*3, delay(ram, 20ms))", "-c",
             "block_hasher -d __DEV__ -b 1048576 -t 4 -n 32 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(read_file(json_path));
  const std::string page = read_file(page_path);
  const json* slow = the_slow_member(result);
  ASSERT_NE(slow, nullptr);
  EXPECT_NE(page.find("Slow member: " + slow->at("name").get<std::string>() + " = delay"),
            std::string::npos)
      << page;
  size_t with_ios = 0;
  for (const auto& d : result["devices"]) {
    if (d["ios"] == 0) continue;
    ++with_ios;
    EXPECT_NE(page.find("data-device=\"" + d["name"].get<std::string>() + "\"><figcaption>"),
              std::string::npos)
        << d["name"];
  }
  EXPECT_GE(with_ios, 5U) << "md0, its four members and the delayed one's disk";
  const auto occurrences = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = page.find(what); at != std::string::npos; at = page.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(occurrences("<figure class=\"histogram device"), with_ios);
  EXPECT_EQ(occurrences("<figure class=\"waterfall\">"), 2U);
  // The title names the run; the report's names the file. Past the title, the same page.
  const std::string again_path = out / "again.html";
  const auto again = iotap({"report", json_path, "-o", again_path});
  ASSERT_EQ(again.status.code, 0) << again.err;
  const std::string redrawn = read_file(again_path);
  const auto body = [](const std::string& html) { return html.substr(html.find("<section")); };
  EXPECT_EQ(body(redrawn), body(page));
  EXPECT_NE(redrawn.find("<title>iotap: run.json</title>"), std::string::npos);

  // The timeline: each of block_hasher's 32 reads of 1 MiB reaches, along the arrows, member
  // bios of 1 MiB in all (what block_hasher asked for, from its own probe), each member io from
  // one read only; and the delayed member's dm device has a slice for every read the kernel
  // counted on it (its /sys/block stats, kernel_stats), and as many as iotap counted.
  const Timeline timeline = read_timeline(read_file(trace_path));
  EXPECT_EQ(timeline.problems, std::vector<std::string>{});
  std::set<std::string> parents;
  for (const auto& d : result["devices"])
    if (d["parent"].is_string()) parents.insert(d["parent"].get<std::string>());
  std::set<std::string> members;
  for (const auto& d : result["devices"])
    if (!parents.contains(d["name"].get<std::string>())) members.insert(d["name"]);
  ASSERT_EQ(timeline.requests.size(), 32U);
  std::set<size_t> member_ios;
  for (const auto& [id, slice] : timeline.requests) {
    const Reached reached = follow_request(timeline, id, members);
    EXPECT_EQ(reached.member_bytes, 1048576U) << "read " << id;
    for (const size_t io : reached.member_ios) EXPECT_TRUE(member_ios.insert(io).second);
  }
  size_t dm_devices = 0;
  for (const auto& d : result["devices"]) {
    uint64_t slices = 0;
    for (const auto& slice : timeline.slices)
      if (slice.args.contains("bio") && slice.args.value("io", true) &&
          timeline.device_of(slice) == d["name"])
        ++slices;
    EXPECT_EQ(slices, d["ios"].get<uint64_t>()) << d["name"];
    // dm counts an io per bio it takes, as iotap does (md counts its own splits: not comparable,
    // kernel_stats_test.cpp). stap may skip a probe hit, rarely, and says so: short by at most
    // that, never over.
    if (!d.contains("kernel_stats") || !d["name"].get<std::string>().starts_with("dm-")) continue;
    ++dm_devices;
    const uint64_t kernel_reads = d["kernel_stats"]["reads"];
    const uint64_t skipped = result["loss"]["skipped_probes"];
    EXPECT_LE(slices, kernel_reads) << d["name"];
    EXPECT_GE(slices + skipped, kernel_reads) << d["name"] << ": " << result["loss"].dump();
  }
  EXPECT_EQ(dm_devices, 1U) << "the delay target, with the kernel's count beside iotap's";
}

}  // namespace
}  // namespace iotap::test
