#include "iotap/stap/module_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "iotap/util/cache_eviction.h"
#include "iotap/util/error.h"
#include "iotap/util/file_lock.h"
#include "iotap/util/files.h"
#include "iotap/util/sha256.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

// Bumped when what a key covers changes, so that old entries are never taken for new ones.
constexpr std::string_view kKeyFormat = "iotap module cache 1";
constexpr std::string_view kModuleFile = "iotap.ko";
constexpr std::string_view kScriptPathFile = "script-path";
constexpr std::string_view kWarningsFile = "warnings";
constexpr std::string_view kLockSuffix = ".lock";

// A file by path, size and modification time (following symlinks), or as absent.
void add_file_identity(Sha256& key, const std::string& path) {
  key.update_field(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    key.update_field("absent");
    return;
  }
  key.update_field(std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
                   std::to_string(st.st_mtim.tv_nsec));
}

// A kernel tree's top-level entries (.config, Module.symvers, System.map, vmlinux, include, ...):
// where each points and its size and time. A package upgrade or a new debuginfo moves them.
void add_kernel(Sha256& key, const std::string& kernel) {
  key.update_field(kernel);
  const bool is_tree = kernel.find('/') != std::string::npos;
  const std::string tree = is_tree ? kernel : "/lib/modules/" + kernel + "/build";
  std::error_code error;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(tree, error)) entries.push_back(entry.path());
  std::ranges::sort(entries);
  for (const auto& entry : entries) {
    std::error_code ignored;
    if (fs::is_symlink(entry, ignored)) key.update_field(fs::read_symlink(entry, ignored).string());
    add_file_identity(key, entry.string());
  }
}

std::string read_or_empty(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return {};
  return read_file(path.string());
}

}  // namespace

std::string module_cache_dir(const std::string& default_dir) {
  const char* chosen = std::getenv("IOTAP_MODULE_CACHE");
  if (chosen == nullptr || *chosen == '\0') return default_dir.empty() ? "" : default_dir;
  if (std::string_view(chosen) == "off") return {};
  return chosen;
}

std::vector<std::string> quoted_absolute_paths(std::string_view text) {
  std::vector<std::string> paths;
  size_t at = 0;
  while ((at = text.find("\"/", at)) != std::string_view::npos) {
    const size_t end = text.find_first_of("\"\n", at + 1);
    if (end == std::string_view::npos) break;
    if (text[end] == '"') paths.emplace_back(text.substr(at + 1, end - at - 1));
    at = end + 1;
  }
  return paths;
}

std::string module_cache_key(const ModuleInputs& inputs) {
  Sha256 key;
  key.update_field(kKeyFormat);
  key.update_field(inputs.stap_version);
  for (const auto& word : inputs.stap_argv) key.update_field(word);
  key.update_field("script");
  key.update_field(inputs.script_name);
  key.update_field(inputs.script_text);
  key.update_field(inputs.path_macros);
  for (const auto& dir : inputs.tapset_dirs) {
    key.update_field(dir);
    for (const auto& file : files_under(dir)) {
      key.update_field(file);
      key.update_file((fs::path(dir) / file).string());
    }
  }
  key.update_field("runtime");
  key.update_field(inputs.runtime_dir);
  if (!inputs.runtime_dir.empty()) {
    for (const auto& file : files_under(inputs.runtime_dir))
      add_file_identity(key, inputs.runtime_dir + "/" + file);
  }
  key.update_field("kernel");
  add_kernel(key, inputs.kernel);
  // The programs a script probes by path: stap reads their probe addresses at compile time.
  key.update_field("named files");
  std::vector<std::string> named = quoted_absolute_paths(inputs.script_text);
  for (auto& path : quoted_absolute_paths(inputs.path_macros)) named.push_back(std::move(path));
  for (const auto& word : inputs.stap_argv) {
    if (word.starts_with('/')) named.push_back(word);
  }
  for (const auto& path : named) add_file_identity(key, path);
  return key.hex();
}

std::optional<CachedModule> ModuleCache::find(const std::string& key) const {
  const fs::path entry = fs::path(dir_) / key;
  std::error_code error;
  if (!fs::is_regular_file(entry / kModuleFile, error)) return std::nullopt;
  // The entry's time is its last use: eviction keeps the most recently used.
  fs::last_write_time(entry, fs::file_time_type::clock::now(), error);
  return CachedModule{(entry / kModuleFile).string(), read_or_empty(entry / kScriptPathFile),
                      read_or_empty(entry / kWarningsFile)};
}

void ModuleCache::store(const std::string& key, const CachedModule& module,
                        size_t max_entries) const {
  const fs::path entry = fs::path(dir_) / key;
  // Written under a temporary name and renamed: a concurrent run sees a whole entry or none.
  const fs::path partial = fs::path(dir_) / partial_entry_name(key);
  std::error_code error;
  fs::create_directories(partial, error);
  if (error) throw UserError("cannot create '" + partial.string() + "': " + error.message());
  try {
    fs::copy_file(module.module_path, partial / kModuleFile, error);
    if (error)
      throw UserError("cannot copy the module into '" + partial.string() + "': " + error.message());
    write_file((partial / kScriptPathFile).string(), module.compiled_script_path);
    write_file((partial / kWarningsFile).string(), module.warnings);
    fs::rename(partial, entry, error);
  } catch (...) {
    fs::remove_all(partial, error);
    throw;
  }
  // Another run stored the same key first: its entry is as good as this one.
  if (error) fs::remove_all(partial, error);
  evict_least_recently_used(dir_, max_entries);
  remove_old_locks();
}

std::unique_ptr<FileLock> ModuleCache::compiling(const std::string& key,
                                                 const std::function<void()>& on_wait) const {
  std::error_code error;
  fs::create_directories(dir_, error);
  return std::make_unique<FileLock>(dir_ + "/" + key + std::string(kLockSuffix), on_wait,
                                    "while waiting for another run's compile of the same module");
}

// A lock file is made per key compiled, and the entries it guarded are evicted in time: those
// an hour old whose entry is gone are removed (a compile takes minutes, so none is held; one
// that were would cost a second compile, not a wrong module).
void ModuleCache::remove_old_locks() const {
  const auto now = fs::file_time_type::clock::now();
  std::error_code error;
  for (const auto& item : fs::directory_iterator(dir_, error)) {
    std::error_code ignored;
    const std::string name = item.path().filename().string();
    if (!name.ends_with(kLockSuffix) || !item.is_regular_file(ignored)) continue;
    const std::string key = name.substr(0, name.size() - kLockSuffix.size());
    if (fs::exists(fs::path(dir_) / key, ignored) ||
        now - item.last_write_time(ignored) < std::chrono::hours(1))
      continue;
    fs::remove(item.path(), ignored);
  }
}

}  // namespace iotap::stap
