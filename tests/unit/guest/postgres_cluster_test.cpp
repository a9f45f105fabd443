// --postgres's cluster made once on this host (guest/postgres_cluster.h): initdb's files in a
// tarball, owned by the guest's postgres, and the same tarball the next time.
#include "iotap/guest/postgres_cluster.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

TEST(PostgresCluster, MadeOnceOwnedByTheGuestsPostgres) {
  const std::optional<PostgresInstall> install = find_postgres_install();
  if (!install) GTEST_FAIL() << "PostgreSQL 15 is not installed here: run ./setup.sh";
  // Under a private TMPDIR (0700, as the vm tests and many users have it): initdb, run as
  // nobody when the test runs as root, could not reach a stage made there (every --postgres
  // run in the suite failed so).
  const TempDir private_tmp("iotap-private-tmp");
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir != nullptr ? old_tmpdir : "";
  ::setenv("TMPDIR", private_tmp.path().c_str(), 1);
  const TempDir cache("iotap-pg-cluster-test");
  const std::string tarball = postgres_cluster(*install, cache.path());
  EXPECT_TRUE(std::filesystem::path(tarball).filename().string().starts_with("postgres-cluster-"))
      << tarball;
  const Captured listing = capture({"tar", "-tvf", tarball, "--numeric-owner"});
  ASSERT_TRUE(listing.status.ok()) << listing.err;
  EXPECT_NE(listing.out.find(" 70/70 "), std::string::npos) << listing.out.substr(0, 400);
  EXPECT_EQ(listing.out.find(" 0/0 "), std::string::npos) << "nothing of root's";
  for (const char* file : {" data/PG_VERSION\n", " data/global/pg_control\n",
                           " data/postgresql.conf\n", " data/base/1/"})
    EXPECT_NE(listing.out.find(file), std::string::npos) << file << " in\n" << listing.out;
  const auto made = std::filesystem::last_write_time(tarball);
  EXPECT_EQ(postgres_cluster(*install, cache.path()), tarball);
  EXPECT_EQ(std::filesystem::last_write_time(tarball), made) << "not made again";
  if (old_tmpdir != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
}

}  // namespace
}  // namespace iotap::guest
