#include "iotap/guest/postgres_cluster.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "iotap/util/error.h"
#include "iotap/util/process.h"
#include "iotap/util/sha256.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kClusterFormat = "iotap postgres cluster 1";
// nobody: initdb refuses root, and the files' owner is set in the tarball anyway.
constexpr const char* kInitdbUser = "65534";
// The guest's postgres (guest/postgres.sh's iotap_pg_user).
constexpr const char* kGuestUid = "70";

std::string cluster_key(const PostgresInstall& install) {
  Sha256 key;
  key.update(kClusterFormat);
  for (const std::string& file :
       {install.server(), install.bin_dir + "/initdb", install.share_dir + "/postgres.bki",
        install.share_dir + "/postgresql.conf.sample", install.share_dir + "/system_views.sql"}) {
    if (fs::exists(file)) key.update_file_identity(file);
  }
  return key.hex().substr(0, 16);
}

void must(const Captured& done, const std::string& what) {
  if (!done.status.ok()) throw UserError(what + ": " + done.err + done.out);
}

}  // namespace

std::string postgres_cluster(const PostgresInstall& install, const std::string& cache_dir) {
  std::string tarball = cache_dir + "/postgres-cluster-" + cluster_key(install) + ".tar";
  if (::access(tarball.c_str(), R_OK) == 0) return tarball;
  // initdb refuses root: root runs it as nobody; anyone else as themselves (the tarball sets
  // the owner either way).
  const bool as_root = ::geteuid() == 0;
  const std::string setpriv = as_root ? find_in_path("setpriv") : "not needed";
  const std::string tar = find_in_path("tar");
  if (setpriv.empty() || tar.empty())
    throw UserError(
        "--postgres makes its cluster with setpriv and tar: apt-get install "
        "util-linux tar");
  std::error_code error;
  fs::create_directories(cache_dir, error);
  if (error) throw UserError("cannot create '" + cache_dir + "': " + error.message());
  // Root runs initdb as nobody, who must reach the data directory: not under a private TMPDIR
  // (0700, root's), but in /tmp, whose mode lets anyone through.
  const TempDir stage("iotap-pg-cluster", as_root ? "/tmp" : temp_base());
  fs::permissions(stage.path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  const std::string data = stage / "data";
  fs::create_directory(data);
  std::vector<std::string> initdb;
  if (as_root) {
    must(capture({"chown", std::string(kInitdbUser) + ":" + kInitdbUser, data}), "chown");
    initdb = {setpriv, std::string("--reuid=") + kInitdbUser, std::string("--regid=") + kInitdbUser,
              "--clear-groups", "--"};
  }
  // guest/postgres.sh appends its own settings to postgresql.conf after unpacking.
  initdb.insert(initdb.end(),
                {"/usr/bin/env", "LC_ALL=C", "TZ=UTC", install.bin_dir + "/initdb", "-D", data,
                 "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"});
  SpawnOptions in_stage;
  in_stage.cwd = stage.path();
  must(capture(initdb, in_stage), "initdb could not make --postgres's cluster");
  const std::string partial = tarball + ".partial." + std::to_string(::getpid());
  must(capture({tar, "-C", stage.path(), "--numeric-owner", std::string("--owner=") + kGuestUid,
                std::string("--group=") + kGuestUid, "-cf", partial, "data"}),
       "tar could not pack --postgres's cluster");
  fs::rename(partial, tarball, error);
  if (error) throw UserError("cannot write '" + tarball + "': " + error.message());
  return tarball;
}

}  // namespace iotap::guest
