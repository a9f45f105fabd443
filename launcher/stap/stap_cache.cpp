#include "iotap/stap/stap_cache.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string_view>
#include <vector>

#include "iotap/util/data_paths.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kConfPrefix = "stapconf_";
constexpr std::string_view kLogSuffix = "_hash.log";

// The path with symlinks resolved (as far as it exists) and no trailing slash.
fs::path canonical(const std::string& path, std::error_code& error) {
  fs::path out = fs::weakly_canonical(path, error);
  return out.has_filename() ? out : out.parent_path();
}

// The same path either way it was spelled (a trailing slash, a symlink).
bool same_path(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code error;
  const fs::path canonical_a = canonical(a, error);
  if (error) return false;
  const fs::path canonical_b = canonical(b, error);
  return !error && canonical_a == canonical_b;
}

// Does this hash log describe a stapconf for `kernel` and `runtime_dir`?
bool log_matches(const fs::path& log, const std::string& kernel, const std::string& runtime_dir) {
  std::ifstream in(log);
  bool kernel_matches = false;
  bool runtime_matches = runtime_dir.empty();
  const bool kernel_is_tree = kernel.find('/') != std::string::npos;
  for (std::string line; std::getline(in, line);) {
    const std::string_view text(line);
    if (!kernel_is_tree && text.starts_with("Kernel Release: ")) {
      kernel_matches = text.substr(16) == kernel;
    } else if (kernel_is_tree && text.starts_with("Kernel Build Tree Path: ")) {
      kernel_matches = same_path(line.substr(24), kernel);
    } else if (!runtime_dir.empty() && text.starts_with("Runtime Path: ")) {
      runtime_matches = same_path(line.substr(14), runtime_dir);
    }
  }
  return kernel_matches && runtime_matches;
}

// The files of stap's cache whose names `wanted` accepts. They sit one level down, in
// directories named by their hash's first two hex digits. stap cleans its cache as it likes: a
// directory gone while we look is left out, and an unreadable cache has no files.
std::vector<fs::directory_entry> cache_files(
    const std::string& cache_dir, const std::function<bool(const std::string&)>& wanted) {
  std::vector<fs::directory_entry> files;
  if (cache_dir.empty()) return files;
  try {
    std::error_code error;
    for (const auto& bucket : fs::directory_iterator(cache_dir, error)) {
      std::error_code ignored;
      if (!bucket.is_directory(ignored)) continue;
      for (const auto& entry : fs::directory_iterator(bucket.path(), ignored))
        if (wanted(entry.path().filename().string())) files.push_back(entry);
    }
  } catch (const fs::filesystem_error&) {
    files.clear();  // not sure: as if empty
  }
  return files;
}

}  // namespace

size_t forget_unfinished_tracepoint_queries(const std::string& cache_dir,
                                            fs::file_time_type since) {
  since -= std::chrono::seconds(1);
  size_t removed = 0;
  for (const auto& entry : cache_files(cache_dir, [](const std::string& name) {
         return name.starts_with("tracequery_") && name.ends_with(".o");
       })) {
    std::error_code ignored;
    if (entry.file_size(ignored) != 0 || ignored) continue;
    if (entry.last_write_time(ignored) < since || ignored) continue;
    fs::remove(entry.path(), ignored);
    fs::remove(
        entry.path().parent_path() / (entry.path().stem().string() + std::string(kLogSuffix)),
        ignored);
    ++removed;
  }
  return removed;
}

std::string stap_cache_dir() {
  const std::string state = stap_state_dir();
  return state.empty() ? state : state + "/cache";
}

bool stap_cache_is_warm(const std::string& cache_dir, const std::string& kernel,
                        const std::string& runtime_dir) {
  if (kernel.empty()) return false;
  for (const auto& entry : cache_files(cache_dir, [](const std::string& name) {
         return name.starts_with(kConfPrefix) && name.ends_with(kLogSuffix);
       })) {
    const std::string name = entry.path().filename().string();
    const std::string header = name.substr(0, name.size() - kLogSuffix.size()) + ".h";
    std::error_code ignored;
    if (!fs::is_regular_file(entry.path().parent_path() / header, ignored)) continue;
    if (log_matches(entry.path(), kernel, runtime_dir)) return true;
  }
  return false;
}

}  // namespace iotap::stap
