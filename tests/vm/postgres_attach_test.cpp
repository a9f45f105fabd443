// Attaching to a PostgreSQL server already running (docs/postgresql-guest.md, "A server you
// already have"): an ssh test host (ssh_test_host --postgres) starts PostgreSQL 15 on its own
// stack before iotap is involved; `iotap diagnose --requests usdt:postgresql` with neither -c
// nor -x then follows every postgres process there, and the backends forked for connections
// made after the module loaded must be followed down to the slow member.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"
#include "ssh_test_rig.h"

namespace iotap::test {
namespace {

// 20000 rows: a 247-page table (2 MB), made in a few seconds under TCG; initdb is most of the
// host's setup. The host's page cache is dropped after the data set is made.
constexpr const char* kRows = "20000";
constexpr int kQueries = 3;

class PostgresAttachTest : public ::testing::Test {
 protected:
  void SetUp() override { require_guest_tools(); }
  // Waits until iotap's module is live on the host (false when `seconds` pass first).
  static bool module_live(const TestHost& host, int seconds) {
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < deadline) {
      if (!host.ssh("grep '^iotap[^ ]* .* Live ' /proc/modules; true").out.empty()) return true;
    }
    return false;
  }
  SshKeys keys_;
  TempDir tmp_{"iotap-pg-attach-tmp"};
  TempDir report_{"iotap-pg-attach-report"};
};

TEST_F(PostgresAttachTest, BackendsForkedAfterTheTraceStartsAreFollowedToTheSlowMember) {
  TestHost host(keys_, "raid0(ram*2, delay(ram, 20ms))", false, {"--postgres", kRows});
  const std::string postmaster = host.ssh("head -n 1 /pg/data/postmaster.pid").out;
  ASSERT_FALSE(postmaster.empty()) << "the server is not running on the host:\n" << host.log();

  const std::string out = report_ / "attach.json";
  LiveIotap iotap(
      {"diagnose", "--target", host.target(), "--requests", "usdt:postgresql", "--json", "-o", out},
      {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  ASSERT_TRUE(iotap.wait_for_line("iotap: ", "] running")) << iotap.err();
  EXPECT_NE(iotap.err().find("attached to every process running "), std::string::npos)
      << iotap.err();
  EXPECT_NE(iotap.err().find("] postgres: the server's counters read (pg_stat_database)"),
            std::string::npos)
      << iotap.err();
  ASSERT_TRUE(module_live(host, 120)) << iotap.err();

  // Each psql is a new connection: a backend the postmaster forks now, after the module loaded.
  const Captured load = host.ssh(
      "for i in $(seq " + std::to_string(kQueries) +
      "); do /iotap/as-postgres psql -X -q -A -t -c 'SELECT count(*) FROM iotap_data' || exit; "
      "done");
  ASSERT_TRUE(load.status.ok()) << load.err;
  EXPECT_EQ(load.out, "20000\n20000\n20000\n");
  iotap.signal(SIGINT);
  EXPECT_EQ(iotap.finish(), 130) << iotap.err();

  const Json result = Json::parse(read_file(out));
  const auto level = [&result](const std::string& name) {
    for (const auto& entry : result["levels"])
      if (entry["name"] == name) return entry;
    return Json::object();
  };
  EXPECT_EQ(result["requests"]["provider"], "postgresql") << iotap.err();
  EXPECT_EQ(level("query")["count"], kQueries) << iotap.err();
  // The first scan found an empty buffer pool and page cache: it read the table from the stack.
  EXPECT_GT(level("smgr_read").value("count", 0), 0) << result["levels"].dump(2);
  ASSERT_EQ(result["verdict"]["slow_members"].size(), 1U) << result["verdict"].dump(2);
  // dm-0 is the delay under md0 (an ssh host's stack is read from its sysfs: names, no specs).
  EXPECT_EQ(result["verdict"]["slow_members"][0]["name"], "dm-0") << result["verdict"].dump(2);
  expect_postgres_counted_what_iotap_saw(result);
  EXPECT_EQ(host.ssh("head -n 1 /pg/data/postmaster.pid").out, postmaster)
      << "the server goes on running after the trace";
  EXPECT_EQ(host.leftovers(), "");
  EXPECT_EQ(files_under(tmp_.path()), std::vector<std::string>{});
}

// Attaching places the probes from this machine's copy of the server's binary, at the same path:
// a host without one there is refused before anything slow, and one whose copy is another build
// is warned of (its probes could miss). The host needs no server for either: the check comes
// first.
TEST_F(PostgresAttachTest, AHostWithoutThisMachinesServerBinaryIsToldSo) {
  const std::string server = "/usr/lib/postgresql/15/bin/postgres";
  TestHost host(keys_, "raid0(ram*2)");
  ASSERT_EQ(host.ssh("test -e " + server + " || echo absent").out, "absent\n");
  const Captured missing =
      run_iotap({"diagnose", "--target", host.target(), "--requests", "usdt:postgresql",
                 "--timeout", "120"},  // without the check it would attach to nothing, until then
                tmp_.path(), {keys_.iotap_env()});
  EXPECT_EQ(missing.status.code, 2) << missing.err;
  EXPECT_NE(missing.err.find("iotap: " + host.target().substr(6) + " has no executable " + server +
                             ": attaching follows the processes running it there"),
            std::string::npos)
      << missing.err;

  // Another build at that path (here a shell): said, then the run goes on until Ctrl-C.
  ASSERT_TRUE(
      host.ssh("mkdir -p " + server.substr(0, server.rfind('/')) + " && cp /bin/sh " + server)
          .status.ok());
  LiveIotap iotap({"diagnose", "--target", host.target(), "--requests", "usdt:postgresql"},
                  {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  ASSERT_TRUE(iotap.wait_for_line("iotap: warning: ", "differs from this machine's " + server))
      << iotap.err();
  // No user postgres there: the server's counters cannot be read, said, and the run goes on
  // (the stop comes as staprun starts: it must not be lost).
  ASSERT_TRUE(iotap.wait_for_line("iotap: ", "] postgres: no counters before the run: su: "))
      << iotap.err();
  iotap.signal(SIGINT);
  EXPECT_EQ(iotap.finish(), 130) << iotap.err();
  EXPECT_EQ(host.leftovers(), "") << iotap.err();
  EXPECT_EQ(files_under(tmp_.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace iotap::test
