// Recorded guest runs in, reports out. Each trace's text report must match
// expected/<name>.txt exactly, and each must show what its stack was built to show.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iotap/engine.h"
#include "iotap/provider/provider.h"
#include "iotap/records_as_text.h"
#include "iotap/report.h"
#include "record.h"
#include "trace_file.h"

namespace iotap::golden {
namespace {

const std::string kDir = GOLDEN_DIR;
constexpr size_t kChunk = size_t{64} * 1024;

engine::Options options() {
  engine::Options o;
  o.slowest = 3;
  return o;
}

Trace trace_named(const std::string& name) {
  return load_trace(kDir + "/traces/" + name + ".json");
}

engine::Result run(const std::string& name, size_t chunk = kChunk, bool records = false) {
  Trace trace = trace_named(name);
  if (records) trace.output = engine::records_of(trace.output);
  engine::Options o = options();
  if (trace.script.ends_with("/syscall_events.stp")) o.requests = engine::RequestSource::syscall;
  if (trace.script.ends_with("/events.stp") && !trace.script.ends_with("syscall_events.stp"))
    o.request_provider = "block_hasher";  // as attribution_run sets it for events.stp
  if (trace.script.ends_with("/postgresql.stp")) {
    // `iotap providers postgresql --script`'s, as attribution_run sets it for --postgres.
    o.request_provider = "postgresql";
    for (const auto& level :
         provider::level_names(provider::read_provider(PROVIDERS_DIR "/postgresql.provider")))
      o.levels.push_back({level.name, level.plural});
  }
  return run_trace(trace, o, chunk);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void expect_golden(const std::string& name) {
  const std::string actual = report::text(run(name), true);
  const std::string path = kDir + "/expected/" + name + ".txt";
  if (std::getenv("IOTAP_GOLDEN_UPDATE") != nullptr) {
    std::ofstream(path) << actual;
    GTEST_SKIP() << "wrote " << path;
  }
  EXPECT_EQ(actual, read_file(path))
      << "expected " << path << " (IOTAP_GOLDEN_UPDATE=1 rewrites it)";
}

const engine::DeviceResult& device(const engine::Result& r, const std::string& name) {
  for (const auto& d : r.devices)
    if (d.name == name) return d;
  throw std::runtime_error("no device " + name);
}

void expect_nothing_lost(const engine::Result& r) {
  EXPECT_EQ(r.loss.sequence_gaps, 0U);
  EXPECT_EQ(r.loss.events_lost, 0U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.loss.malformed_lines, 0U);
  EXPECT_EQ(r.loss.skipped_probes, 0U);
  EXPECT_EQ(r.loss.transport_failures, 0U);
  EXPECT_EQ(r.stream.late_events, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  EXPECT_EQ(r.stream.requests_unfinished, 0U);
  EXPECT_EQ(r.remap_check.mismatches, 0U);
  EXPECT_GT(r.remap_check.checked, 0U);
}

// The mean of the members that are not `slow`, in `array`.
double healthy_mean_us(const engine::Result& r, const std::string& array, const std::string& slow) {
  double sum = 0;
  int n = 0;
  for (const auto& d : r.devices)
    if (d.parent == array && d.name != slow) {
      sum += d.latency.mean_us;
      ++n;
    }
  return n == 0 ? 0 : sum / n;
}

TEST(Golden, Incident) {
  expect_golden("incident");
  const engine::Result r = run("incident");
  expect_nothing_lost(r);
  EXPECT_EQ(r.requests.count, 64U);
  ASSERT_EQ(r.slow_members.size(), 1U);
  const auto& slow = r.slow_members[0];
  EXPECT_EQ(slow.name, "dm-0");
  EXPECT_EQ(slow.spec, "delay(ram,50ms)");
  EXPECT_EQ(slow.parent, "md0");
  EXPECT_EQ(slow.siblings, 7U);
  // A 50 ms delay shows as 50 ms plus what a healthy member takes, within 20%.
  const double expected = 50'000 + healthy_mean_us(r, "md0", "dm-0");
  EXPECT_NEAR(device(r, "dm-0").latency.mean_us, expected, expected * 0.2);
  EXPECT_NEAR(slow.mean_us, expected, expected * 0.2);
  EXPECT_GT(slow.share_of_slowest, 0.5);
  EXPECT_GE(slow.slowest_requests, 7U);
  EXPECT_TRUE(r.failing_members.empty());
}

TEST(Golden, Healthy) {
  expect_golden("healthy");
  const engine::Result r = run("healthy");
  expect_nothing_lost(r);
  EXPECT_EQ(r.requests.count, 64U);
  EXPECT_TRUE(r.slow_members.empty());
  EXPECT_TRUE(r.failing_members.empty());
}

TEST(Golden, Raid1SlowLeg) {
  expect_golden("raid1_slow_leg");
  const engine::Result r = run("raid1_slow_leg");
  expect_nothing_lost(r);
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].name, "dm-0");
  EXPECT_EQ(r.slow_members[0].spec, "delay(ram,20ms)");
  EXPECT_EQ(r.slow_members[0].siblings, 1U);
  const double expected = 20'000 + healthy_mean_us(r, "md0", "dm-0");
  EXPECT_NEAR(device(r, "dm-0").latency.mean_us, expected, expected * 0.2);
}

TEST(Golden, Nested) {
  expect_golden("nested");
  const engine::Result r = run("nested");
  expect_nothing_lost(r);
  ASSERT_EQ(r.slow_members.size(), 1U);
  const auto& slow = r.slow_members[0];
  EXPECT_EQ(slow.name, "dm-0");  // the delay, not the linear device above it
  EXPECT_EQ(slow.spec, "delay(ram,20ms)");
  EXPECT_EQ(slow.parent, "dm-1");
  EXPECT_EQ(slow.member, "dm-1");
  EXPECT_EQ(slow.array, "md0");
  const double expected = 20'000 + healthy_mean_us(r, "md0", "dm-1");
  EXPECT_NEAR(slow.mean_us, expected, expected * 0.2);
}

// dd (no USDT probes) reading the incident through its system calls: dd's 32 reads, nothing
// else, the slow member named with its share of the slowest tenth.
TEST(Golden, DdReadingTheIncident) {
  expect_golden("dd_read_incident");
  const engine::Result r = run("dd_read_incident");
  expect_nothing_lost(r);
  EXPECT_EQ(r.request_source, engine::RequestSource::syscall);
  EXPECT_EQ(r.requests.count, 32U);  // dd: "32+0 records in"
  EXPECT_EQ(r.requests_without_block_io, 0U);
  EXPECT_GT(r.stream.requests_elsewhere, 0U);  // the loader's reads of libc
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].spec, "delay(ram,50ms)");
  EXPECT_GT(r.slow_members[0].share_of_slowest, 0.5);
  EXPECT_GE(r.slow_members[0].slowest_requests, 4U);  // a tenth of 32, whole buckets
}

// dd writing 64 pages through the page cache, then fsync: the writes reach no device, the fsync
// waits on all 64 write-backs and a flush.
TEST(Golden, DdBufferedWritesThenFsync) {
  expect_golden("dd_fsync_raid1");
  const engine::Result r = run("dd_fsync_raid1");
  expect_nothing_lost(r);
  ASSERT_EQ(r.request_kinds.size(), 2U);
  EXPECT_EQ(r.request_kinds[0].op, "write");
  EXPECT_EQ(r.request_kinds[0].count, 64U);
  EXPECT_EQ(r.request_kinds[0].without_block_io, 64U);
  EXPECT_EQ(r.request_kinds[1].op, "flush");
  EXPECT_EQ(r.request_kinds[1].count, 1U);
  ASSERT_EQ(r.slowest.size(), 1U);
  EXPECT_EQ(r.slowest[0].call, "fsync");
  uint64_t md0_bios = 0;
  for (const auto& stage : r.slowest[0].stages)
    if (stage.device == "md0") md0_bios += stage.bios;
  EXPECT_EQ(md0_bios, 65U);  // 64 write-backs and the flush
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].spec, "delay(ram,20ms)");
}

TEST(Golden, ErrorMember) {
  expect_golden("error_member");
  const engine::Result r = run("error_member");
  EXPECT_EQ(r.loss.sequence_gaps, 0U);
  EXPECT_EQ(r.loss.unmatched_completions, 0U);
  EXPECT_EQ(r.loss.malformed_lines, 0U);
  EXPECT_EQ(r.stream.bios_in_flight, 0U);
  EXPECT_TRUE(r.slow_members.empty());
  const auto& dm0 = device(r, "dm-0");
  EXPECT_GT(dm0.errors, 0U);
  EXPECT_EQ(dm0.errors, dm0.ios);  // error(ram) fails every io
  EXPECT_EQ(device(r, "ram0").errors, 0U);
  EXPECT_EQ(r.request_errors, 8U);  // block_hasher's own count: "8 errors"
  ASSERT_EQ(r.failing_members.size(), 1U);
  EXPECT_EQ(r.failing_members[0].name, "dm-0");
  EXPECT_EQ(r.failing_members[0].spec, "error(ram)");
}

// How many lines of `kind` ("I", "D") the recording holds for the device numbered `dev` (the
// stream's major << 20 | minor): counted from the text, not by the engine.
uint64_t stream_lines(const std::string& name, std::string_view kind, uint64_t dev) {
  std::istringstream lines(load_trace(kDir + "/traces/" + name + ".json").output);
  uint64_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string word;
    std::vector<std::string> fields;
    while (words >> word) fields.push_back(word);
    // KIND TS CPU SEQ TID RQ DEV ...
    if (fields.size() > 6 && fields[0] == kind && fields[6] == std::to_string(dev)) ++count;
  }
  return count;
}

// Four null_blk members whose hrtimer completes each request 1, 2, 5 and 20 ms after its issue,
// in hardirq context: every request issued completes in the stream, none is dropped while
// another probe runs on the CPU (stap's INTERRUPTIBLE=0), and each member's mean is at least its
// latency.
TEST(Golden, NullMembersEveryIssuedRequestCompletes) {
  expect_golden("null_members");
  const engine::Result r = run("null_members");
  expect_nothing_lost(r);
  EXPECT_EQ(r.requests.count, 64U);
  const std::array<std::pair<const char*, double>, 4> members{
      {{"nullb0", 1000}, {"nullb1", 2000}, {"nullb2", 5000}, {"nullb3", 20000}}};
  for (uint64_t minor = 0; const auto& [name, latency_us] : members) {
    const uint64_t dev = (uint64_t{254} << 20) | minor++;
    const auto& d = device(r, name);
    const uint64_t issued = stream_lines("null_members", "I", dev);
    EXPECT_EQ(issued, 80U) << name;  // 64 MiB in 124 KiB requests over 8 members
    EXPECT_EQ(stream_lines("null_members", "D", dev), issued) << name;
    EXPECT_EQ(d.ios, issued) << name;  // each of md's bios here is one request
    EXPECT_GE(d.latency.mean_us, latency_us) << name;
  }
}

// Where the stream is cut must not matter.
TEST(Golden, ChunkingDoesNotChangeTheResult) {
  const std::string whole = report::text(run("incident", SIZE_MAX / 2), true);
  for (const size_t chunk : {size_t{1}, size_t{7}, size_t{4096}})
    EXPECT_EQ(report::text(run("incident", chunk), true), whole) << "chunk " << chunk;
  // Requests inside requests (PB/PT/PE, a query's text) cut anywhere read the same.
  const std::string queries = report::text(run("postgres_raid0", SIZE_MAX / 2), true);
  for (const size_t chunk : {size_t{1}, size_t{4096}})
    EXPECT_EQ(report::text(run("postgres_raid0", chunk), true), queries) << "chunk " << chunk;
}

// The same recordings as binary records, cut anywhere: the same tables, to the last digit.
TEST(Golden, BinaryRecordsReadAsTheirTextLinesRead) {
  for (const std::string name :
       {"incident", "healthy", "raid1_slow_leg", "nested", "dd_read_incident", "dd_fsync_raid1",
        "error_member", "null_members", "postgres_raid0"}) {
    const Trace trace = trace_named(name);
    const std::string records = engine::records_of(trace.output);
    EXPECT_LT(records.size(), trace.output.size()) << name;
    EXPECT_NE(records.find(engine::kRecordMarker), std::string::npos) << name;
    const std::string text = report::text(run(name), true);
    for (const size_t chunk : {size_t{1}, size_t{29}, kChunk})
      EXPECT_EQ(report::text(run(name, chunk, true), true), text) << name << ", chunk " << chunk;
    // What `iotap run` shows of the records: the recording's own lines, byte for byte.
    for (const size_t chunk : {size_t{1}, kChunk}) {
      std::string shown;
      engine::RecordsAsText as_text([&shown](std::string_view bytes) { shown += bytes; });
      for (size_t at = 0; at < records.size(); at += chunk)
        as_text.feed(std::string_view(records).substr(at, chunk));
      as_text.finish();
      EXPECT_TRUE(shown == trace.output) << name << ", chunk " << chunk;
    }
  }
}

// PostgreSQL 15 in the guest on raid0(ram*2, delay(ram, 20ms)), 5000 rows, the page cache
// dropped, two statements through psql (a sequential scan, then an index range scan), traced
// by `iotap providers postgresql --script`.
TEST(Golden, PostgresQueriesReadsAndTheSlowMember) {
  expect_golden("postgres_raid0");
  const engine::Result r = run("postgres_raid0");
  ASSERT_EQ(r.levels.size(), 4U);
  EXPECT_EQ(r.levels[0].name, "query");
  EXPECT_EQ(r.requests.count, 2U) << "psql ran two statements";
  for (const auto& level : r.levels) EXPECT_EQ(level.unfinished, 0U) << level.name;
  // PostgreSQL's own count over the run (the recording's "postgres": pg_stat_database for
  // database iotap): every block it read from its files is one smgr read. The smgr probes see
  // also the shared catalogs' (database 0, not in iotap's row): 8 in this run, as in others.
  const Trace trace = load_trace(kDir + "/traces/postgres_raid0.json");
  ASSERT_TRUE(trace.postgres.contains("blks_read"));
  const auto blks_read = static_cast<uint64_t>(trace.postgres.at("blks_read"));
  const engine::LevelResult& smgr = r.levels[2];
  EXPECT_EQ(smgr.name, "smgr_read");
  EXPECT_GE(smgr.count, blks_read);
  EXPECT_LE(smgr.count, blks_read + 8);
  // Every smgr read is one pread64 of 8192 bytes, and those that missed the page cache (it was
  // dropped) reached the stack: md0, whose member dm-0 is 20 ms late.
  EXPECT_EQ(smgr.reads_stack + smgr.reads_cache, smgr.count);
  ASSERT_EQ(r.slow_members.size(), 1U);
  EXPECT_EQ(r.slow_members[0].name, "dm-0");
  EXPECT_EQ(r.slow_members[0].spec, "delay(ram,20ms)");
  EXPECT_NEAR(device(r, "dm-0").latency.mean_us, 20'000 + healthy_mean_us(r, "md0", "dm-0"),
              20'000 * 0.2);
}

}  // namespace
}  // namespace iotap::golden
