#include "iotap/guest/postgres_guest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

TEST(PostgresInstall, FoundWhereDebianPutsTheServer) {
  const TempDir root("iotap-pg-test");
  EXPECT_FALSE(find_postgres_install(root.path())) << "no server, no PostgreSQL";
  std::filesystem::create_directories(root / "usr/lib/postgresql/15/bin");
  write_file(root / "usr/lib/postgresql/15/bin/postgres", "#!/bin/sh\n", 0755);
  const std::optional<PostgresInstall> install = find_postgres_install(root.path());
  ASSERT_TRUE(install);
  EXPECT_EQ(install->server(), root / "usr/lib/postgresql/15/bin/postgres")
      << "the path the probes name, the same in the guest";
  EXPECT_EQ(install->share_dir, root / "usr/share/postgresql/15");
  EXPECT_EQ(postgres_trees(*install),
            (std::vector<std::string>{root / "usr/lib/postgresql/15",
                                      root / "usr/share/postgresql/15", "/usr/share/zoneinfo"}));
}

TEST(PostgresGuestConf, SaysWhatTheGuestScriptReads) {
  PostgresRun run;
  run.install = {.bin_dir = "/usr/lib/postgresql/15/bin",
                 .lib_dir = "/usr/lib/postgresql/15/lib",
                 .share_dir = "/usr/share/postgresql/15"};
  run.device = "/dev/md0";
  run.rows = 1234;
  run.drop_caches = false;
  run.pgbench_scale = 3;
  run.library_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  EXPECT_EQ(postgres_guest_conf(run),
            "IOTAP_PG_BIN='/usr/lib/postgresql/15/bin'\n"
            "IOTAP_PG_TREES='/usr/lib/postgresql/15 /usr/share/postgresql/15 "
            "/usr/share/zoneinfo'\n"
            "IOTAP_PG_LIBRARY_PATH='/tools/lib/x86_64-linux-gnu:/tools/usr/lib/x86_64-linux-gnu'\n"
            "IOTAP_PG_DEVICE='/dev/md0'\nIOTAP_PG_ROWS=1234\nIOTAP_PG_DROP_CACHES=0\n"
            "IOTAP_PG_PGBENCH_SCALE=3\nIOTAP_PG_CLUSTER=''\n");
  run.cluster = "/root/.cache/iotap/postgres-cluster-0123.tar";
  EXPECT_TRUE(postgres_guest_conf(run).ends_with(
      "\nIOTAP_PG_CLUSTER='/root/.cache/iotap/postgres-cluster-0123.tar'\n"));
  run.device = "/dev/it's";
  EXPECT_THROW(postgres_guest_conf(run), std::logic_error);
}

// The host's own PostgreSQL (setup.sh installs it): its server and clients with their libraries,
// its share files, the JIT left out.
TEST(PostgresFiles, TheServerItsClientsAndTheirLibrariesWithoutTheJit) {
  const std::optional<PostgresInstall> install = find_postgres_install();
  if (!install) GTEST_FAIL() << "PostgreSQL 15 is not installed here: run ./setup.sh";
  const PostgresFiles files = postgres_files(*install);
  const auto has = [&files](const std::string& path) {
    return std::ranges::find(files.files, path) != files.files.end();
  };
  EXPECT_TRUE(has(install->server()));
  EXPECT_TRUE(has(install->bin_dir + "/initdb"));
  EXPECT_TRUE(has(install->bin_dir + "/psql"));
  EXPECT_TRUE(has(install->lib_dir + "/plpgsql.so"));
  EXPECT_TRUE(has(install->share_dir + "/postgres.bki")) << "initdb's catalog";
  EXPECT_FALSE(has(install->lib_dir + "/llvmjit.so"));
  EXPECT_TRUE(std::ranges::any_of(files.files, [](const std::string& file) {
    return file.find("/libpq.so") != std::string::npos;
  }));
  ASSERT_EQ(files.programs.size(), 1U);
  EXPECT_TRUE(files.programs[0].ends_with("/mke2fs"));
  EXPECT_FALSE(files.library_dirs.empty());
}

}  // namespace
}  // namespace iotap::guest
