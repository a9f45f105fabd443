// iotap record of a PostgreSQL run (issue 29, point 6): the server's smgr reads, each on its file
// (relfilenode), held to what PostgreSQL counted (EXPLAIN's shared reads for the statement,
// pg_stat_database's blks_read for the run) and to what a sequential scan must read (every page
// of the table, once, in order); the files laid out on the device (docs/recording-format.md, "A
// database's files"); the recording replayed on another stack, whose delayed member the replay's
// attribution names; and its fio form (--format fio) replayed by fio.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "iotap/recording/recording.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;
using PostgresRecordTest = VmFixture;

// As postgres_guest_test.cpp: 20000 rows are 247 pages of table, a 55-page index.
constexpr int kRows = 20000;
constexpr uint64_t kTablePages = 247;
constexpr uint64_t kPage = 8192;

// Every block PostgreSQL read from the kernel over the run, by its own count: its database's
// (blks_read) and the shared catalogs' (pg_database, pg_authid, ...: the row of database 0).
uint64_t postgres_reads(const json& summary) {
  const json& postgres = summary.at("postgres");
  return postgres.at("blks_read").get<uint64_t>() +
         postgres.at("shared").at("blks_read").get<uint64_t>();
}
const char* const kExplainScan =
    "EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM iotap_data WHERE filler LIKE '%'";

// The statement's shared reads as EXPLAIN printed them (psql's output, on iotap's stderr): its
// first Buffers line is the plan's top (the Aggregate, everything under it: the scan), not its
// planning's catalog reads, which come after. 0 when there is none.
uint64_t explained_reads(const std::string& psql_output) {
  std::smatch explain;
  if (!std::regex_search(psql_output, explain,
                         std::regex(R"(\[psql\] +Buffers: shared (?:hit=[0-9]+ )?read=([0-9]+))")))
    return 0;
  return std::stoull(explain[1]);
}

// One file's region on the device, from the header's "files".
struct Region {
  uint64_t file = 0, offset = 0, bytes = 0;
};

std::vector<Region> regions_of(const json& header) {
  std::vector<Region> regions;
  for (const json& f : header.at("files"))
    regions.push_back({f.at("file"), f.at("offset"), f.at("bytes")});
  return regions;
}

// The region holding [offset, offset + size), or null.
const Region* region_of(const std::vector<Region>& regions, uint64_t offset, uint64_t size) {
  for (const Region& r : regions)
    if (offset >= r.offset && offset + size <= r.offset + r.bytes) return &r;
  return nullptr;
}

TEST_F(PostgresRecordTest, ADatabasesReadsAreRecordedByFileAndReplayedOnAnotherStack) {
  TempDir files("iotap-postgres-record-test");
  const std::string out = files.path() + "/scan.rec";
  const Captured run =
      iotap({"record", "-o", out, "--json", "--target", "vm", "--stack", "raid0(ram*2)",
             "--postgres", "--postgres-rows", std::to_string(kRows), "--sql", kExplainScan});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json summary = json::parse(run.out);
  const json& postgres = summary.at("postgres");
  ASSERT_TRUE(postgres.is_object()) << "pg_stat_database was not read: " << run.err;
  const recording::Recording rec = recording::read(out);
  const json header = rec.header();
  EXPECT_EQ(header.at("provider"), "postgresql");
  EXPECT_EQ(header.at("levels"), json({"smgr_read", "smgr_write"}));

  // Each recorded read is one smgr read of one page, inside its file's region; the regions do
  // not overlap.
  const std::vector<Region> regions = regions_of(header);
  ASSERT_FALSE(regions.empty());
  for (size_t i = 1; i < regions.size(); ++i)
    EXPECT_GE(regions[i].offset, regions[i - 1].offset + regions[i - 1].bytes);
  std::map<uint64_t, std::vector<uint64_t>> pages;  // by file: the pages read, in order
  uint64_t reads = 0;
  for (const auto& r : rec.requests) {
    if (r.op != 'R') continue;
    ++reads;
    EXPECT_EQ(r.call, "smgr_read");
    EXPECT_EQ(r.size, kPage);
    EXPECT_EQ(r.result, static_cast<int64_t>(kPage));
    const Region* region = region_of(regions, r.offset, r.size);
    ASSERT_NE(region, nullptr) << "a read outside every file: offset " << r.offset;
    pages[region->file].push_back((r.offset - region->offset) / kPage);
  }
  // PostgreSQL's own counts: every buffer that missed the pool is one smgr read, and the recording
  // holds each, but for a read whose probe hit stap skipped.
  const uint64_t skipped = summary.at("loss").at("skipped_probes");
  EXPECT_LE(reads, postgres_reads(summary)) << postgres.dump();
  EXPECT_GE(reads + skipped, postgres_reads(summary)) << postgres.dump();
  EXPECT_EQ(summary.at("reads"), reads);
  // The table is the file read most; the scan read every page of it once, in order.
  const auto table = std::max_element(pages.begin(), pages.end(), [](const auto& a, const auto& b) {
    return a.second.size() < b.second.size();
  });
  ASSERT_EQ(table->second.size(), kTablePages) << "file " << table->first;
  // The statement's own count: EXPLAIN's first Buffers line is the plan's top (the Aggregate,
  // everything under it: the scan), not its planning's catalog reads, which come after.
  EXPECT_EQ(explained_reads(run.err), table->second.size()) << "EXPLAIN's shared reads\n"
                                                            << run.err;
  for (uint64_t page = 0; page < kTablePages; ++page)
    ASSERT_EQ(table->second[page], page)
        << "the scan's read " << page << " of file " << table->first;

  const Captured replay =
      iotap({"replay", out, "--json", "--target", "vm", "--stack", "raid0(ram, delay(ram, 20ms))"});
  ASSERT_EQ(replay.status.code, 0) << replay.err;
  const json a = json::parse(replay.out);
  const json& fidelity = a.at("replay");
  EXPECT_EQ(fidelity.at("requests_recorded"), rec.requests.size());
  EXPECT_EQ(fidelity.at("requests_replayed"), rec.requests.size());
  EXPECT_EQ(fidelity.at("order_preserved"), true) << fidelity.dump();
  EXPECT_EQ(fidelity.at("bytes_replayed"), fidelity.at("bytes_recorded"));
  EXPECT_EQ(a.at("requests").at("count"), rec.requests.size());
  ASSERT_EQ(a.at("verdict").at("slow_members").size(), 1U) << a.at("verdict").dump();
  EXPECT_EQ(a.at("verdict").at("slow_members")[0].at("spec"), "delay(ram,20ms)");
}

// The same scan recorded in fio's iolog form: one line a read (8 KiB at the device offset of its
// page in the laid-out files), as many as the summary and PostgreSQL counted, and fio itself
// replays every one of them (its own count of the I/Os it issued).
TEST_F(PostgresRecordTest, TheFioFormOfADatabasesReadsIsReplayedByFio) {
  const std::string fio = find_in_path("fio");
  ASSERT_FALSE(fio.empty()) << "fio is missing: run ./setup.sh";
  TempDir files("iotap-postgres-record-test");
  const std::string log = files.path() + "/scan.iolog";
  const Captured run = iotap({"record", "--format", "fio", "-o", log, "--json", "--target", "vm",
                              "--stack", "raid0(ram*2)", "--postgres", "--postgres-rows",
                              std::to_string(kRows), "--sql", kExplainScan});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json summary = json::parse(run.out);

  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "fio version 3 iolog");
  uint64_t reads = 0;
  uint64_t end = 0;  // the furthest byte read: the replay's file must reach it
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string when;
    std::string file;
    std::string action;
    uint64_t offset = 0;
    uint64_t size = 0;
    words >> when >> file >> action;
    if (action != "read") continue;
    ASSERT_TRUE(words >> offset >> size) << line;
    EXPECT_EQ(size, kPage) << line;
    EXPECT_EQ(offset % kPage, 0U) << line;
    end = std::max(end, offset + size);
    ++reads;
  }
  EXPECT_EQ(summary.at("reads"), reads);
  EXPECT_GE(reads, explained_reads(run.err)) << run.err;
  EXPECT_GE(explained_reads(run.err), kTablePages) << run.err;
  const uint64_t skipped = summary.at("loss").at("skipped_probes");
  EXPECT_LE(reads, postgres_reads(summary)) << summary.at("postgres").dump();
  EXPECT_GE(reads + skipped, postgres_reads(summary)) << summary.at("postgres").dump();

  const std::string target = files.path() + "/target";
  std::ofstream(target).close();
  std::filesystem::resize_file(target, end);
  const Captured replay =
      capture({fio, "--name=replay", "--read_iolog=" + log, "--replay_redirect=" + target,
               "--ioengine=psync", "--output-format=json"});
  ASSERT_EQ(replay.status.code, 0) << replay.err;
  const json report = json::parse(replay.out.substr(replay.out.find('{')));
  const json& fio_reads = report.at("jobs").at(0).at("read");
  EXPECT_EQ(fio_reads.at("total_ios"), reads) << replay.out;
  EXPECT_EQ(fio_reads.at("io_bytes"), reads * kPage);
}

}  // namespace
}  // namespace iotap::test
