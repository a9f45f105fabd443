#pragma once
// --postgres: PostgreSQL 15 started in the guest on the stack before the trace, its data set
// made, its buffer pool emptied and the page cache dropped; the -c command then runs as its user
// (guest/postgres.sh does all that in the guest; docs/postgresql-guest.md). This side finds the
// host's installation, puts it on the tools image (too big for the initramfs: 30 MB of ICU
// data alone) and writes the guest's settings.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iotap::guest {

// The data set's rows when --postgres-rows does not say: about 100 bytes each, 81 to an 8 KiB
// page, so 300000 rows are a 29 MiB table (3704 pages) and a 7 MiB index: four times the
// 8 MiB buffer pool (postgres.sh's shared_buffers). 500000 did not fit raid0(ram*2)'s 128 MiB
// beside the cluster (40 MiB) and the index build's sort files.
inline constexpr uint64_t kDefaultPostgresRows = 300'000;

// Debian's layout of PostgreSQL 15 (postgresql-15). The guest has each directory at the same
// path as this host (bind-mounted from the tools image), so the probes that name the server,
// compiled against this host's copy, name the guest's executable too.
struct PostgresInstall {
  std::string bin_dir;    // postgres, initdb, pg_ctl, psql, pgbench, ...
  std::string lib_dir;    // the server's loadable modules (plpgsql, dict_snowball, ...)
  std::string share_dir;  // initdb's catalog files, timezone sets
  // The server's executable, the path a probe on it names: the same in the guest.
  [[nodiscard]] std::string server() const { return bin_dir + "/postgres"; }
};

// PostgreSQL 15 under `root` (a test's tree; "" for this host's /), or nullopt when its server
// is not there.
std::optional<PostgresInstall> find_postgres_install(const std::string& root = "");

// This host's, or a UserError saying what to install.
PostgresInstall require_postgres_install();

// The host files the guest needs: `programs` get a launcher on the tools image (mke2fs, which
// makes the file system), `files` are copied at their paths (PostgreSQL's directories and the
// libraries of all of them), `library_dirs` are the guest's LD_LIBRARY_PATH for the server.
struct PostgresFiles {
  std::vector<std::string> programs;
  std::vector<std::string> files;
  std::vector<std::string> library_dirs;
};
PostgresFiles postgres_files(const PostgresInstall& install);

// What --postgres asks of the guest.
struct PostgresRun {
  PostgresInstall install;
  std::string device;  // where the file system goes: the stack's top device, /dev/md0
  uint64_t rows = kDefaultPostgresRows;
  bool drop_caches = true;  // the page cache dropped after the restart, before the command
  // pgbench's own tables (pgbench_accounts: 100000 rows a unit) made with `pgbench -i -s N`
  // in the setup, for `pgbench -S` and its other built-in scripts; 0: not made.
  uint64_t pgbench_scale = 0;
  // The host directories of the server's libraries (PostgresFiles::library_dirs): under /tools,
  // the server's LD_LIBRARY_PATH in the guest.
  std::vector<std::string> library_dirs;
  // The initdb'd cluster's tarball (guest/postgres_cluster.h), a host path: on the tools image
  // at /tools under it. Empty: the guest runs initdb itself.
  std::string cluster{};
};

// The directories the guest bind-mounts from the tools image at their host paths.
std::vector<std::string> postgres_trees(const PostgresInstall& install);

// The tools image (guest/tools_image.h) holding `files`; cached like bpftrace's.
std::string postgres_tools_image(const PostgresFiles& files, const std::string& cache_dir);

// /iotap/postgres.conf, the settings guest/postgres.sh reads, as sh assignments. Throws
// std::logic_error for a path sh would need more than single quotes for (Debian's never do).
std::string postgres_guest_conf(const PostgresRun& run);

}  // namespace iotap::guest
