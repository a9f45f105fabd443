// --postgres: PostgreSQL started in the guest on the stack, a statement run under the probes, and
// PostgreSQL's own count of its reads (pg_stat_database over the run, iotap run --json's
// "postgres") held to what its smgr read probe saw.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;
using PostgresGuestTest = VmFixture;

// 20000 rows: 247 pages and a 55-page index, made in about 4 s under TCG (initdb, 28 s, is most
// of the run). The scan reads every page of the table from the file system: the server started
// with an empty buffer pool.
constexpr int kRows = 20000;

TEST_F(PostgresGuestTest, ASequentialScanReadsWhatPostgresCounts) {
  const auto run = iotap({"run", std::string(VM_SCRIPTS_DIR) + "/postgres_probes.stp", "--json",
                          "--target", "vm", "--stack", "raid0(ram*2)", "--postgres",
                          "--postgres-rows", std::to_string(kRows), "--sql",
                          "SELECT count(*) FROM iotap_data WHERE filler LIKE '%'"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const json result = json::parse(run.out);
  const std::string output = result["output"];
  EXPECT_NE(output.find(" " + std::to_string(kRows) + "\n(1 row)"), std::string::npos)
      << "the query's result: " << output;
  EXPECT_NE(output.find("queries 1\n"), std::string::npos) << output;
  const json& postgres = result["postgres"];
  ASSERT_TRUE(postgres.is_object()) << "pg_stat_database was not read: " << run.err;
  const uint64_t database = postgres["database_oid"];
  std::smatch match;
  const std::regex line("smgr reads in database " + std::to_string(database) + ": ([0-9]+)");
  ASSERT_TRUE(std::regex_search(output, match, line)) << "no smgr read in the database: " << output;
  const uint64_t probed = std::stoull(match[1]);
  EXPECT_GE(probed, 247U) << "every page of the table";
  EXPECT_EQ(probed, postgres["blks_read"].get<uint64_t>())
      << "each buffer that missed the pool is one smgr read";
  EXPECT_GT(postgres["blk_read_time_ms"].get<double>(), 0.0) << "track_io_timing is on";
}

// A data set the stack cannot hold (64 MiB of ram disks, most of them the new cluster's and
// ext4's; 400000 rows are a 39 MiB table): one line saying what failed, with the server's own
// words, exit 2, and nothing left behind (the fixture checks iotap's TMPDIR).
TEST_F(PostgresGuestTest, AFailedDataSetIsOneLineWithTheServersLog) {
  const auto run = iotap({"run", std::string(VM_SCRIPTS_DIR) + "/postgres_probes.stp", "--target",
                          "vm", "--stack", "raid0(ram:32M*2)", "--postgres", "--postgres-rows",
                          "400000", "--sql", "SELECT 1"});
  EXPECT_EQ(run.status.code, 2) << run.err;
  EXPECT_NE(run.err.find("iotap: guest: postgres: could not make the data set (server log: "),
            std::string::npos)
      << run.err;
  // The server's words, whichever of its processes hit the full disk first: "ERROR:  could not
  // extend file ...: wrote only 4096 of 8192 bytes ... HINT:  Check free disk space." (the
  // backend) or "ERROR:  could not write block 28 in file ...: No space left on device" (the
  // background writer).
  EXPECT_TRUE(std::regex_search(run.err, std::regex("server log: .*(Check free disk space|No "
                                                    "space left on device)")))
      << run.err;
}

}  // namespace
}  // namespace iotap::test
