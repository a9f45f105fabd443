#include "iotap/session/postgres_options.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"
#include "parse_target_options.h"

namespace iotap::session {
namespace {

TargetOptions parse(const std::vector<std::string>& args) {
  return parse_target_options(args);
}

TEST(PostgresOptions, SqlIsPsqlWithOneDashCPerStatementQuotedForTheCommandLine) {
  const TargetOptions options = parse(
      {"--postgres", "--stack", "raid0(ram*2)", "--sql", "SELECT 'a b'", "--sql", "SELECT 2"});
  EXPECT_TRUE(options.postgres.start);
  EXPECT_TRUE(options.postgres.command_from_sql);
  EXPECT_EQ(options.command_line,
            std::string(kSqlClient) + " -c 'SELECT '\\''a b'\\' -c 'SELECT 2'");
  EXPECT_NO_THROW(check_target_options(options));
}

TEST(PostgresOptions, CombinationsThatCannotWork) {
  EXPECT_THROW(parse({"--sql", "SELECT 1", "-c", "true"}), UserError) << "-c and --sql";
  EXPECT_THROW(parse({"--postgres-rows", "0"}), UserError);
  EXPECT_THROW(parse({"--pgbench-scale", "0"}), UserError);
  EXPECT_THROW(parse({"--pgbench-scale", "1001"}), UserError);
  const auto refused = [](std::vector<std::string> args, const std::string& message) {
    try {
      check_target_options(parse(std::move(args)));
      ADD_FAILURE() << "accepted; expected: " << message;
    } catch (const UserError& error) {
      EXPECT_TRUE(std::string(error.what()).starts_with(message)) << error.what();
    }
  };
  refused({"--postgres", "--target", "local"}, "--postgres starts PostgreSQL in a guest");
  refused({"--postgres", "--target", "ssh://db7"}, "--postgres starts PostgreSQL in a guest");
  refused({"--postgres"}, "--postgres puts its data directory on the stack's top device");
  refused({"--sql", "SELECT 1", "--stack", "raid0(ram*2)"}, "--sql goes with --postgres");
  refused({"--postgres-rows", "10"}, "--postgres-rows goes with --postgres");
  refused({"--keep-page-cache"}, "--keep-page-cache goes with --postgres");
  refused({"--pgbench-scale", "1"}, "--pgbench-scale goes with --postgres");
}

TEST(PostgresOptions, TheGuestIsAskedForTheStacksTopDeviceAndTheRows) {
  if (!guest::find_postgres_install())
    GTEST_FAIL() << "PostgreSQL 15 is not installed here: run ./setup.sh";
  const TargetOptions options = parse(
      {"--postgres", "--stack", "raid0(ram*2)", "--postgres-rows", "1000", "--keep-page-cache"});
  const auto stack = plan_target_stack(options);
  const std::optional<guest::PostgresRun> run = postgres_run(options, stack);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->device, "/dev/md0");
  EXPECT_EQ(run->rows, 1000U);
  EXPECT_FALSE(run->drop_caches);
  EXPECT_EQ(run->pgbench_scale, 0U) << "pgbench's tables only when asked";
  EXPECT_EQ(
      postgres_run(parse({"--postgres", "--stack", "raid0(ram*2)", "--pgbench-scale", "2"}), stack)
          ->pgbench_scale,
      2U);
  EXPECT_EQ(postgres_server(options), "/usr/lib/postgresql/15/bin/postgres");
  EXPECT_FALSE(postgres_run(parse({"--stack", "raid0(ram*2)"}), stack)) << "no --postgres";
  EXPECT_FALSE(postgres_server(parse({})));
}

TEST(ResolveCommand, BareNamesFromTheProgramDirFirst) {
  const TempDir dir("iotap-bin");
  write_file(dir / "psql", "#!/bin/sh\n", 0755);
  EXPECT_EQ(resolve_command("psql -c 'SELECT 1'", std::nullopt, dir.path()).program, dir / "psql");
  EXPECT_NE(resolve_command("true", std::nullopt, dir.path()).program, dir / "true")
      << "a name it does not have is found as before";
}

// Attached to a server, the counters are every database's (database_oid 0): null in the JSON, and
// the text sets the server's count beside iotap's smgr reads.
TEST(PostgresStats, TheWholeServersCountsBesideIotaps) {
  runner::PostgresStats server{.database_oid = 0, .blks_read = 280, .shared_blks_read = 3};
  const Json levels = Json::parse(
      R"([{"name": "query", "count": 3},
          {"name": "smgr_read", "count": 283, "latency_us": {"mean": 1000.0}}])");
  EXPECT_TRUE(postgres_stats_json(server)["database_oid"].is_null());
  EXPECT_EQ(postgres_stats_text(server, levels),
            "postgres: the server counted 283 blocks read from the kernel (pg_stat_database: 280 "
            "in its databases, 3 in shared catalogs); iotap saw 283 smgr reads\n");
  server.database_oid = 16384;
  server.blk_read_time_ms = 290.25;
  EXPECT_EQ(postgres_stats_json(server)["database_oid"], 16384);
  EXPECT_EQ(postgres_stats_text(server, levels),
            "postgres: the server counted 283 blocks read from the kernel (pg_stat_database: 280 "
            "in the database, 3 in shared catalogs); iotap saw 283 smgr reads; read time 290.2 ms "
            "by its clock, 283.0 ms by iotap's\n");
  EXPECT_EQ(postgres_stats_text(std::nullopt, levels), "");
}

}  // namespace
}  // namespace iotap::session
