// The reports: the JSON contract of docs/engine.md and the text a person reads.
#include "iotap/report.h"

#include <gtest/gtest.h>

#include "iotap/report/html.h"
#include "stream.h"

namespace iotap::engine::testing {
namespace {

Result incident_like() {
  auto stack = raid0(1);
  stack[0].md_members.emplace_back("dm-0", 4096);
  stack.push_back(device("dm-0", dm(0), "delay(ram,50ms)", "md0"));
  stack.push_back(device("ram1", ram(1), "ram", "dm-0"));
  Stream s;
  for (uint64_t k = 0; k < 8; ++k) {
    const uint64_t t = k * 100 * kMs;
    const bool slow = k % 2 == 1;
    const uint64_t serve = slow ? 50 * kMs : 40 * kUs;
    s.rs(t, 0, 100, k + 1, k * 524288).q(t + kUs, 0, 100, 0xa0, kMd0, k * 1024, 4096);
    s.m(t + 2 * kUs, 0, 100, 0xb0, slow ? dm(0) : ram(0), (k / 2) * 1024 + 4096, 4096, kMd0,
        k * 1024)
        .q(t + 3 * kUs, 0, 100, 0xb0, slow ? dm(0) : ram(0), (k / 2) * 1024 + 4096, 4096);
    if (slow) {
      s.m(t + 3 * kUs + serve, 1, 51, 0xc0, ram(1), (k / 2) * 1024 + 4096, 4096, dm(0),
          (k / 2) * 1024 + 4096)
          .q(t + 4 * kUs + serve, 1, 51, 0xc0, ram(1), (k / 2) * 1024 + 4096, 4096)
          .c(t + 30 * kUs + serve, 1, 0, 0xc0);
    }
    s.c(t + 40 * kUs + serve, 1, 0, 0xb0).c(t + 41 * kUs + serve, 1, 0, 0xa0);
    s.rd(t + 50 * kUs + serve, 0, 100, k + 1);
  }
  s.raw("thread 0: 8 blocks");
  Options options;
  options.slowest = 2;
  options.request_provider = "block_hasher";
  return run(stack, s.text(), options);
}

TEST(Report, JsonKeepsTheContract) {
  const nlohmann::ordered_json j = report::json(incident_like());
  EXPECT_EQ(j["schema"], "iotap.attribution/3");
  EXPECT_EQ(j["requests"]["count"], 8);
  for (const char* key : {"mean", "p50", "p95", "p99", "max"})
    EXPECT_TRUE(j["requests"]["latency_us"][key].is_number()) << key;
  ASSERT_EQ(j["devices"].size(), 4U);
  const auto& dm0 = j["devices"][2];
  EXPECT_EQ(dm0["name"], "dm-0");
  EXPECT_EQ(dm0["dev"], "254:0");
  EXPECT_EQ(dm0["spec"], "delay(ram,50ms)");
  EXPECT_EQ(dm0["parent"], "md0");
  EXPECT_EQ(dm0["ios"], 4);
  EXPECT_EQ(dm0["bytes"], 4 * 4096);
  EXPECT_EQ(dm0["errors"], 0);
  EXPECT_NEAR(dm0["latency_us"]["mean"].get<double>(), 50'037, 1);
  EXPECT_TRUE(j["devices"][0]["parent"].is_null());  // the top device
  ASSERT_EQ(j["verdict"]["slow_members"].size(), 1U);
  const auto& slow = j["verdict"]["slow_members"][0];
  EXPECT_EQ(slow["name"], "dm-0");
  EXPECT_EQ(slow["spec"], "delay(ram,50ms)");
  EXPECT_EQ(slow["parent"], "md0");
  EXPECT_EQ(slow["evidence"]["siblings"], 1);
  EXPECT_NEAR(slow["evidence"]["mean_us"].get<double>(), 50'037, 1);
  EXPECT_NEAR(slow["evidence"]["siblings_mean_us"].get<double>(), 77, 1);
  EXPECT_GT(slow["evidence"]["share_of_slowest"].get<double>(), 0.99);
  EXPECT_EQ(slow["evidence"]["slowest_requests"], 4);  // dm-0's four reads, all in the top tenth
  EXPECT_DOUBLE_EQ(slow["evidence"]["slowest_fraction"].get<double>(), 0.1);
  EXPECT_EQ(slow["evidence"]["slowest_of"], "requests");  // no provider levels: the reads
  EXPECT_EQ(j["requests"]["source"], "usdt");
  EXPECT_EQ(j["requests"]["without_block_io"], 0);
  ASSERT_EQ(j["requests"]["kinds"].size(), 1U);
  EXPECT_EQ(j["requests"]["kinds"][0]["op"], "read");
  for (const char* key : {"sequence_gaps", "events_lost", "unmatched_completions",
                          "malformed_lines", "skipped_probes", "transport_failures"})
    EXPECT_EQ(j["loss"][key], 0) << key;
  EXPECT_EQ(j["remap_check"]["mismatches"], 0);
  EXPECT_EQ(j["remap_check"]["checked"], 8);
  ASSERT_EQ(j["layers"].size(), 5U);
  EXPECT_EQ(j["layers"][0]["name"], "before submit");
  ASSERT_EQ(j["slowest"].size(), 2U);
  EXPECT_EQ(j["slowest"][0]["stages"][0]["layer"], "before submit");
  EXPECT_EQ(j["stream"]["other_lines"], 2);
}

TEST(Report, EveryLatencyCarriesItsHistogramOverPowersOfTwo) {
  const nlohmann::ordered_json j = report::json(incident_like());
  // dm-0's four reads took 50 ms each: all in 32.8 to 65.5 ms.
  const auto& dm0 = j["devices"][2]["latency_us"]["histogram"];
  ASSERT_EQ(dm0.size(), 1U) << dm0.dump();
  EXPECT_EQ(dm0[0]["from_us"], 32768);
  EXPECT_EQ(dm0[0]["to_us"], 65536);
  EXPECT_EQ(dm0[0]["count"], 4);
  // Every histogram counts each io (each request) once, its buckets adjoining.
  const auto counted = [](const nlohmann::ordered_json& buckets) {
    uint64_t sum = 0;
    for (size_t i = 0; i < buckets.size(); ++i) {
      sum += buckets[i]["count"].get<uint64_t>();
      if (i > 0) {
        EXPECT_EQ(buckets[i]["from_us"], buckets[i - 1]["to_us"]);
      }
    }
    return sum;
  };
  for (const auto& device : j["devices"])
    EXPECT_EQ(counted(device["latency_us"]["histogram"]), device["ios"]) << device.dump();
  EXPECT_EQ(counted(j["requests"]["latency_us"]["histogram"]), 8U);
}

TEST(Report, TextReadsAtAGlance) {
  const std::string text = report::text(incident_like(), true);
  EXPECT_NE(text.find("reads: 8 reads (block_hasher's USDT probes), 0 errors; latency us: mean "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("verdict: slow member dm-0 = delay(ram,50ms) in md0: mean 50037 us "
                      "against 77 us for its 1 sibling; 100% of the slowest 10% of requests' time "
                      "(4 requests)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("loss: none\n"), std::string::npos) << text;
  EXPECT_NE(text.find("remap check: 8 remaps checked against the stack's geometry, 0 mismatches"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("slowest reads:\n  read "), std::string::npos) << text;
  EXPECT_EQ(report::text(incident_like(), false).find("slowest reads"), std::string::npos);
}

// A replay's requests come through io_replayer's USDT probes and are what the recording held:
// 64 writes and a flush are not "65 reads (block_hasher's USDT probes)" (issue 27). A failing
// member is the verdict, with no "no slow member" before it.
TEST(Report, UsdtRequestsOtherThanReadsAreNamedByKindAndByTheirProvider) {
  Result r;
  r.request_source = RequestSource::usdt;
  r.request_provider = "io_replayer";
  r.requests.count = 65;
  RequestKind writes;
  writes.op = "write";
  writes.count = 64;
  RequestKind flushes;
  flushes.op = "flush";
  flushes.count = 1;
  r.request_kinds = {writes, flushes};
  r.failing_members = {FailingMember{
      .name = "dm-0", .spec = "error(ram)", .parent = "md0", .ios = 64, .errors = 64}};
  DeviceResult failing;
  failing.name = "dm-0";
  failing.ios = 64;
  failing.errors = 64;
  r.devices = {failing};
  const std::string text = report::text(r, true);
  EXPECT_TRUE(text.starts_with("requests: 65 requests (io_replayer's USDT probes), 0 errors"))
      << text;
  EXPECT_EQ(text.find("reads"), std::string::npos) << text;
  EXPECT_NE(text.find("  write "), std::string::npos) << text;
  EXPECT_NE(text.find("  flush "), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: failing member dm-0 = error(ram) in md0: 64 of 64 ios failed"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("no slow member"), std::string::npos) << text;
  EXPECT_EQ(report::json(r)["requests"]["provider"], "io_replayer");
}

TEST(Report, KernelMeanColumnOnlyWithKernelStats) {
  EXPECT_EQ(report::text(incident_like(), false).find("kernel mean"), std::string::npos)
      << "no column of dashes without the kernel's statistics";
  KernelDiskStats kernel;
  kernel["dm-0"].reads = 4;
  kernel["dm-0"].read_ms = 202;
  const std::string text = report::text(incident_like(), false, {}, kernel);
  EXPECT_NE(text.find("kernel mean us"), std::string::npos) << text;
  // dm-0's row ends with the kernel's 202 ms / 4 reads; md0's and ram1's with a dash.
  EXPECT_NE(text.find(" 50500\n"), std::string::npos) << text;
  const size_t ram1 = text.find("  ram1 ");
  ASSERT_NE(ram1, std::string::npos) << text;
  EXPECT_EQ(text.substr(text.find('\n', ram1) - 2, 2), " -") << text;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, VerdictFirstTheSlowMemberMarkedAHistogramPerDevice) {
  const std::string page = report::html(report::json(incident_like()), "block_hasher on md0");
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>")) << page.substr(0, 100);
  const size_t verdict = page.find("<section id=\"verdict\" class=\"verdict slow\">");
  ASSERT_NE(verdict, std::string::npos) << page;
  EXPECT_LT(verdict, page.find("<section id=\"stack\">"));
  EXPECT_NE(page.find("Slow member: dm-0 = delay(ram,50ms)"), std::string::npos);
  // The tree: dm-0 marked, under md0, over ram1.
  EXPECT_NE(page.find("<span class=\"node slow\" data-device=\"dm-0\">"), std::string::npos);
  EXPECT_LT(page.find("data-device=\"md0\""), page.find("data-device=\"dm-0\""));
  EXPECT_LT(page.find("data-device=\"dm-0\""), page.find("data-device=\"ram1\""));
  // A histogram per device (all four had ios) and the requests'; each device's bars count its
  // ios: dm-0's one bar, 4 reads from 32.8 to 65.5 ms.
  EXPECT_EQ(occurrences(page, "<figure class=\"histogram device"), 4U);
  EXPECT_EQ(occurrences(page, "<figure class=\"histogram requests\">"), 1U);
  EXPECT_NE(page.find("<figure class=\"histogram device slow\" data-device=\"dm-0\">"),
            std::string::npos);
  EXPECT_NE(page.find("<title>dm-0: 4 from 32.8 ms to 65.5 ms</title>"), std::string::npos) << page;
  EXPECT_EQ(occurrences(page, "<figure class=\"waterfall\">"), 2U);  // options.slowest
  EXPECT_NE(page.find("<section id=\"layers\">"), std::string::npos);
  EXPECT_NE(page.find("loss: none"), std::string::npos);
  // Self-contained: nothing to fetch, nothing to run.
  for (const char* outside : {"<script", "src=", "href=", "url(", "@import", "<link"})
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
}

TEST(HtmlReport, EscapesEverythingItQuotes) {
  nlohmann::ordered_json j = report::json(incident_like());
  j["devices"][2]["spec"] = "<img src=x onerror=alert(1)>&\"'";
  j["verdict"]["slow_members"][0]["spec"] = j["devices"][2]["spec"];
  const std::string page = report::html(j, "a <b>title</b>");
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>title"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;"), std::string::npos);
  EXPECT_NE(page.find("a &lt;b&gt;title&lt;/b&gt;"), std::string::npos);
}

TEST(HtmlReport, AReportWithoutHistogramsSaysSoAndNoVerdictIsGrey) {
  nlohmann::ordered_json j = report::json(incident_like());
  for (auto& device : j["devices"]) device["latency_us"].erase("histogram");
  j["verdict"] = {{"status", "no_io"},
                  {"reason", "no I/O seen"},
                  {"slow_members", nlohmann::ordered_json::array()},
                  {"failing_members", nlohmann::ordered_json::array()}};
  const std::string page = report::html(j, "old.json");
  EXPECT_EQ(occurrences(page, "No histogram in this report"), 4U);
  EXPECT_NE(page.find("class=\"verdict none\"><p class=\"headline\">No verdict</p>"),
            std::string::npos);
  EXPECT_NE(page.find("<p>no I/O seen</p>"), std::string::npos);
}

TEST(Report, LossIsSpelledOut) {
  Stream s;
  s.q(1, 0, 1, 0xa, kMd0, 0, 4096).lose(0, 3).c(2, 0, 1, 0xa).c(3, 0, 1, 0xdead);
  s.raw("Q 1 2 3");
  Engine engine(raid0(2), {});
  engine.feed(s.text());
  engine.note_stap_warning("WARNING: Number of errors: 0, skipped probes: 12");
  engine.note_stap_warning("WARNING: There were 3 transport failures.  Try stap -s.");
  const Result r = engine.finish();
  EXPECT_EQ(r.loss.skipped_probes, 12U);
  EXPECT_EQ(r.loss.transport_failures, 3U);
  const std::string text = report::text(r, false);
  EXPECT_NE(text.find("loss: 1 sequence gap (3 events lost), 1 completion of nothing seen start, "
                      "1 malformed line, 12 skipped probes, 3 transport failures\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace iotap::engine::testing
