#include "iotap/guest/postgres_guest.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "iotap/guest/elf_dependencies.h"
#include "iotap/guest/tools_image.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

// The regular files under `dir` (symlinks to files read as files), sorted.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file(error)) files.push_back(entry.path().string());
  }
  std::ranges::sort(files);
  return files;
}

// The timezones the server reads with timezone = 'UTC' (GMT is its fallback at startup).
constexpr std::array<const char*, 4> kZones = {"UTC", "GMT", "Etc/UTC", "Etc/GMT"};
constexpr const char* kZoneDir = "/usr/share/zoneinfo";

}  // namespace

std::optional<PostgresInstall> find_postgres_install(const std::string& root) {
  PostgresInstall install{.bin_dir = root + "/usr/lib/postgresql/15/bin",
                          .lib_dir = root + "/usr/lib/postgresql/15/lib",
                          .share_dir = root + "/usr/share/postgresql/15"};
  if (!is_executable_file(install.server())) return std::nullopt;
  return install;
}

PostgresInstall require_postgres_install() {
  std::optional<PostgresInstall> install = find_postgres_install();
  if (!install)
    throw UserError(
        "--postgres needs PostgreSQL 15 on this host (/usr/lib/postgresql/15/bin/postgres): "
        "apt-get install postgresql-15 (./setup.sh does; 'iotap doctor' checks the rest)");
  return *install;
}

PostgresFiles postgres_files(const PostgresInstall& install) {
  PostgresFiles result;
  const std::string mke2fs = find_in_path("mke2fs");
  if (mke2fs.empty())
    throw UserError(
        "--postgres makes ext4 in the guest with this host's mke2fs: apt-get install e2fsprogs "
        "(./setup.sh does)");
  result.programs.push_back(mke2fs);
  std::vector<std::string> elf_files;
  for (const auto& file : files_under(install.bin_dir)) {
    if (is_executable_file(file)) elf_files.push_back(file);
  }
  // Its modules, less the JIT (jit = off: LLVM is 100 MB) and its bitcode.
  for (const auto& file : files_under(install.lib_dir)) {
    const std::string name = fs::path(file).filename().string();
    if (file.ends_with(".so") && !name.starts_with("llvmjit") &&
        file.find("/bitcode/") == std::string::npos)
      elf_files.push_back(file);
  }
  std::set<std::string> libraries;
  for (const auto& file : elf_files) {
    try {
      const std::vector<std::string> dependencies = runtime_dependencies(file);
      libraries.insert(dependencies.begin(), dependencies.end());
      result.files.push_back(file);
    } catch (const UserError&) {
      // A module whose library this host lacks stays out (CREATE EXTENSION of it fails in
      // the guest, as it would here); the server and its clients must not.
      if (file.starts_with(install.bin_dir)) throw;
    }
  }
  const std::vector<std::string> share = files_under(install.share_dir);
  result.files.insert(result.files.end(), share.begin(), share.end());
  for (const char* zone : kZones) {
    const std::string path = std::string(kZoneDir) + "/" + zone;
    if (fs::exists(path)) result.files.push_back(path);
  }
  if (fs::exists("/etc/mke2fs.conf")) result.files.emplace_back("/etc/mke2fs.conf");
  std::set<std::string> dirs;
  for (const auto& library : libraries) {
    result.files.push_back(library);
    dirs.insert(fs::path(library).parent_path().string());
  }
  result.library_dirs.assign(dirs.begin(), dirs.end());
  return result;
}

std::vector<std::string> postgres_trees(const PostgresInstall& install) {
  return {fs::path(install.bin_dir).parent_path().string(), install.share_dir, kZoneDir};
}

std::string postgres_tools_image(const PostgresFiles& files, const std::string& cache_dir) {
  return tools_image(files.programs, cache_dir, files.files);
}

std::string postgres_guest_conf(const PostgresRun& run) {
  const auto plain = [](const std::string& text) {
    if (text.find_first_of("'\n") != std::string::npos)
      throw std::logic_error("postgres.conf: a path with a quote or newline: " + text);
    return single_quoted(text);
  };
  std::string library_path;
  for (const auto& dir : run.library_dirs)
    library_path += (library_path.empty() ? "/tools" : ":/tools") + dir;
  std::string trees;
  for (const auto& tree : postgres_trees(run.install)) trees += (trees.empty() ? "" : " ") + tree;
  return "IOTAP_PG_BIN=" + plain(run.install.bin_dir) + "\nIOTAP_PG_TREES=" + plain(trees) +
         "\nIOTAP_PG_LIBRARY_PATH=" + plain(library_path) +
         "\nIOTAP_PG_DEVICE=" + plain(run.device) + "\nIOTAP_PG_ROWS=" + std::to_string(run.rows) +
         "\nIOTAP_PG_DROP_CACHES=" + (run.drop_caches ? "1" : "0") +
         "\nIOTAP_PG_PGBENCH_SCALE=" + std::to_string(run.pgbench_scale) +
         "\nIOTAP_PG_CLUSTER=" + (run.cluster.empty() ? "''" : plain(run.cluster)) + "\n";
}

}  // namespace iotap::guest
