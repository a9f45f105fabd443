#include "iotap/util/cache_eviction.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

namespace iotap {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPartialMark = ".partial.";

}  // namespace

std::string partial_entry_name(const std::string& name) {
  return name + std::string(kPartialMark) + std::to_string(::getpid());
}

void evict_least_recently_used(const std::string& dir, size_t keep) {
  struct Entry {
    fs::file_time_type used;
    fs::path path;
  };
  std::vector<Entry> entries;
  const auto now = fs::file_time_type::clock::now();
  std::error_code error;
  for (const auto& item : fs::directory_iterator(dir, error)) {
    std::error_code ignored;
    const std::string name = item.path().filename().string();
    if (!item.is_directory(ignored)) continue;
    const fs::file_time_type time = item.last_write_time(ignored);
    if (name.find(kPartialMark) != std::string::npos) {
      if (now - time > std::chrono::hours(1)) fs::remove_all(item.path(), ignored);
      continue;
    }
    entries.push_back({time, item.path()});
  }
  if (entries.size() <= keep) return;
  std::ranges::sort(entries, [](const Entry& a, const Entry& b) { return a.used > b.used; });
  for (size_t i = keep; i < entries.size(); ++i) {
    // Renamed out of its place first (atomic: a run finds the whole entry or none), then
    // removed: an eviction cut short leaves a partial directory, which goes after an hour.
    std::error_code ignored;
    const fs::path gone =
        entries[i].path.parent_path() / partial_entry_name(entries[i].path.filename().string());
    fs::rename(entries[i].path, gone, ignored);
    if (!ignored) fs::remove_all(gone, ignored);
  }
}

}  // namespace iotap
