// Ground truth from PostgreSQL itself (issue 29, point 4): one PostgreSQL run in the guest, with
// track_io_timing on, and iotap's numbers for it held to PostgreSQL's own: pg_stat_database over
// the run (the "postgres" object of diagnose --json) and one statement's EXPLAIN (ANALYZE,
// BUFFERS), printed by psql on iotap's stderr. What each number covers: docs/engine.md,
// "PostgreSQL's own numbers".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;
using PostgresTruthTest = VmFixture;

// 20000 rows: a 247-page table, made in about 4 s under TCG, on a raid0 with a slow member.
// (With 50 ms for 20, PostgreSQL's read time stayed 6.4% above iotap's: what its clock holds
// besides the probes' span grows with the reads, docs/engine.md.)
constexpr int kRows = 20000;
const char* const kStack = "raid0(ram*2, delay(ram, 20ms))";
const char* const kScan = "SELECT count(*) FROM iotap_data WHERE filler LIKE '%'";

// What PostgreSQL's read clock may hold beyond the probes' span: 15% of it, or 300 us a read when
// that is more (its clock_gettime system calls and the uprobe traps: 60 to 495 us a read measured
// under TCG, docs/engine.md). The per-read part matters when the reads are short: a statement
// whose 247 reads were mostly page-cache hits (121.5 ms by EXPLAIN) had iotap at 84.5% of it.
constexpr double kPostgresShareFloor = 0.85;
constexpr double kPostgresMsPerReadAllowed = 0.3;

double iotap_floor_ms(double postgres_ms, uint64_t reads) {
  return postgres_ms - std::max((1 - kPostgresShareFloor) * postgres_ms,
                                kPostgresMsPerReadAllowed * static_cast<double>(reads));
}

// What EXPLAIN (ANALYZE, BUFFERS) said the statement read: the top plan node's "Buffers: shared
// ... read=N" and "I/O Timings: shared read=MS" (the execution's, all nodes below included), and
// the same lines under "Planning:" when planning read anything.
struct ExplainReads {
  uint64_t reads = 0;
  double read_ms = 0;
  int lines = 0;  // the Buffers lines seen: the execution's, and the planning's if it read
};

ExplainReads explain_reads(const std::string& psql_output) {
  ExplainReads seen;
  std::istringstream lines(psql_output);
  std::string line;
  bool execution_buffers = false;
  bool execution_timings = false;
  bool planning = false;
  const std::regex buffers("Buffers: shared.* read=([0-9]+)");
  const std::regex timings("I/O Timings: shared read=([0-9.]+)");
  std::smatch match;
  while (std::getline(lines, line)) {
    if (line.find("Planning:") != std::string::npos) planning = true;
    if (line.find("Planning Time:") != std::string::npos) planning = false;
    const bool counts = planning || !execution_buffers;
    if (std::regex_search(line, match, buffers) && counts) {
      seen.reads += std::stoull(match[1]);
      ++seen.lines;
      execution_buffers = execution_buffers || !planning;
    }
    if (std::regex_search(line, match, timings) && (planning || !execution_timings)) {
      seen.read_ms += std::stod(match[1]);
      execution_timings = execution_timings || !planning;
    }
  }
  return seen;
}

// iotap's smgr reads inside one query, from the --perfetto timeline: the smgr_read slices on the
// query's thread within its span.
struct QueryReads {
  bool found = false;
  uint64_t reads = 0;
  double read_us = 0;
};

QueryReads query_reads(const json& trace, const std::string& text_start) {
  QueryReads seen;
  double start = 0;
  double end = 0;
  uint64_t tid = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event.value("cat", "") != "level" || event["args"]["level"] != "query") continue;
    if (event["args"]["text"].get<std::string>().rfind(text_start, 0) != 0) continue;
    seen.found = true;
    start = event["ts"];
    end = start + event["dur"].get<double>();
    tid = event["tid"];
  }
  for (const auto& event : trace["traceEvents"]) {
    if (event.value("cat", "") != "level" || event["args"]["level"] != "smgr_read") continue;
    const double ts = event["ts"];
    if (event["tid"] != tid || ts < start || ts > end) continue;
    ++seen.reads;
    seen.read_us += event["dur"].get<double>();
  }
  return seen;
}

// One run feeds the four checks (a PostgreSQL guest run takes about 100 s under TCG). The first
// statement plans the scan without running it: the catalogs that parsing and planning read are
// then in the buffer pool, so the second statement's reads are its table's, and EXPLAIN counts
// each of them (a read while parsing would be in no line of EXPLAIN's).
TEST_F(PostgresTruthTest, IotapsReadsArePostgresOwn) {
  const std::string timeline = tmp_.path() + "/timeline.json";  // removed once read
  const auto run = iotap({"attribute", "--json", "--perfetto", timeline, "--target", "vm",
                          "--stack", kStack, "--postgres", "--postgres-rows", std::to_string(kRows),
                          "--sql", std::string("EXPLAIN ") + kScan, "--sql",
                          std::string("EXPLAIN (ANALYZE, BUFFERS) ") + kScan});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  std::ifstream timeline_file(timeline);
  ASSERT_TRUE(timeline_file) << "no --perfetto timeline";
  const json trace = json::parse(timeline_file);
  std::filesystem::remove(timeline);
  // stap skips a hit whose handler would wait on a lock another CPU holds (its vCPU descheduled
  // by the host): one skipped START or DONE is one smgr read iotap cannot pair.
  const uint64_t skipped = result["loss"]["skipped_probes"];
  std::cout << "pgtruth: loss " << result["loss"] << "\n";
  const json& postgres = result["postgres"];
  ASSERT_TRUE(postgres.is_object()) << "pg_stat_database was not read: " << run.err;
  json smgr_reads;
  for (const auto& level : result["levels"])
    if (level["name"] == "smgr_read") smgr_reads = level;
  ASSERT_TRUE(smgr_reads.is_object()) << result["levels"];

  // 1. Every block PostgreSQL read from the kernel is one smgr read: the database's own
  // (blks_read) and the shared catalogs' (database 0, pg_stat_database's shared row). iotap's
  // count is the server's, all databases (its events carry no database; this server has one in
  // use). Exact: the counters' "after" reading connects under the probes, so the reads its
  // connection's start makes are seen too (before, 6 of the shared row's 14 were not).
  const uint64_t iotap_reads = smgr_reads["count"];
  const uint64_t database_reads = postgres["blks_read"];
  const uint64_t shared_reads = postgres["shared"]["blks_read"];
  std::cout << "pgtruth: smgr reads " << iotap_reads << ", blks_read " << database_reads
            << " + shared " << shared_reads << "\n";
  EXPECT_GE(database_reads, 247U) << "every page of the table, at least";
  EXPECT_GE(iotap_reads + skipped, database_reads + shared_reads) << skipped << " hits skipped";
  EXPECT_LE(iotap_reads, database_reads + shared_reads);

  // 2. Their summed time against track_io_timing's, which PostgreSQL adds to the reading
  // backend's own database, shared catalogs' reads included (the shared row's time stays 0).
  const double iotap_ms = smgr_reads["latency_us"]["mean"].get<double>() * iotap_reads / 1000;
  const double postgres_ms = postgres["blk_read_time_ms"];
  std::cout << "pgtruth: summed smgr read time " << iotap_ms << " ms, blk_read_time " << postgres_ms
            << " ms\n";
  // PostgreSQL's clock holds the probes' span, and more: its clock_gettime calls are system
  // calls in this guest (the hpet clocksource under TCG), the uprobe traps before the START
  // probe's time and after the DONE probe's are inside it (90 us a read, 0.5%), and so are the
  // host's stalls of the vCPU that land there (10 to 42 ms, a few reads a run: most of the
  // gap). The clocks agree (within 1 ppm, measured): 4 to 16% here (docs/engine.md), so 5% does
  // not hold under TCG, and this is not widened to make it. Below, iotap_floor_ms: a sanity
  // floor (a query's time counted as its reads' would be far above it).
  EXPECT_LT(iotap_ms, postgres_ms) << "the probes' span is inside PostgreSQL's clock";
  EXPECT_GT(iotap_ms, iotap_floor_ms(postgres_ms, iotap_reads))
      << "most of PostgreSQL's read time is the probes' span";

  // 3. One statement: its shared reads and their time, as EXPLAIN printed them, against the smgr
  // reads iotap saw inside that query.
  const ExplainReads explained = explain_reads(run.err);
  ASSERT_GE(explained.lines, 1) << "no Buffers line from EXPLAIN: " << run.err;
  const QueryReads query = query_reads(trace, "EXPLAIN (ANALYZE");
  ASSERT_TRUE(query.found) << "the EXPLAIN ANALYZE query is not on the timeline";
  std::cout << "pgtruth: EXPLAIN read=" << explained.reads << " " << explained.read_ms
            << " ms; iotap " << query.reads << " smgr reads " << query.read_us / 1000 << " ms\n";
  EXPECT_LE(query.reads, explained.reads);
  EXPECT_GE(query.reads + skipped, explained.reads) << skipped << " probe hits skipped";
  EXPECT_LT(query.read_us / 1000, explained.read_ms) << "the same clock as blk_read_time's";
  EXPECT_GT(query.read_us / 1000, iotap_floor_ms(explained.read_ms, explained.reads));

  // 4. Of those reads, the ones iotap says reached the stack (a bio of their pread completed on
  // md0) are no more than the reads the kernel counted on md0 over the run (md counts every part
  // it splits a bio into, so this is a bound, not an equality), and some did (the page cache was
  // dropped before the run).
  json md0;
  for (const auto& device : result["devices"])
    if (device["name"] == "md0") md0 = device;
  ASSERT_TRUE(md0.is_object() && md0["kernel_stats"].is_object()) << result["devices"];
  const uint64_t reached = smgr_reads["io"]["reads_stack"];
  const uint64_t kernel_reads = md0["kernel_stats"]["reads"];
  std::cout << "pgtruth: smgr reads that reached the stack " << reached << " (of "
            << smgr_reads["io"]["reads_stack"].get<uint64_t>() +
                   smgr_reads["io"]["reads_cache"].get<uint64_t>()
            << " preads), md0's reads (kernel) " << kernel_reads << "\n";
  EXPECT_GT(reached, 0U) << "the page cache was dropped: some reads reach md0";
  EXPECT_LE(reached, kernel_reads);
}

}  // namespace
}  // namespace iotap::test
