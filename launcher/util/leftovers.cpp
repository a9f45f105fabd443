#include "iotap/util/leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

namespace iotap {
namespace {

namespace fs = std::filesystem;

// The prefixes iotap's own TempDirs use; a test's or another tool's dirs are never touched.
constexpr std::array<std::string_view, 3> kPrefixes{"iotap-run.", "iotap-vm.", "iotap-fleet."};

// The PID in "iotap-run.PID.XXXXXX", when the name has that shape.
std::optional<pid_t> owner_pid(std::string_view name) {
  for (const auto prefix : kPrefixes) {
    if (!name.starts_with(prefix)) continue;
    const std::string_view rest = name.substr(prefix.size());
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
    if (error != std::errc() || pid <= 0 || end == rest.data()) return std::nullopt;
    const std::string_view suffix(end, static_cast<size_t>(rest.data() + rest.size() - end));
    if (suffix.size() != 7 || suffix[0] != '.') return std::nullopt;  // ".XXXXXX" of mkdtemp
    return pid;
  }
  return std::nullopt;
}

// A live iotap process has this pid. /proc/PID/stat is readable for every process, unlike
// /proc/PID/exe; a pid reused by some other program does not count, nor does a zombie (a run
// killed a moment ago whose parent has not reaped it yet: it holds nothing any more).
bool live_iotap(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat_file, line)) return false;  // no such process
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses; it ends at the last ')'.
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= line.size())
    return false;
  const char state = line[close + 2];
  return line.substr(open + 1, close - open - 1) == "iotap" && state != 'Z' && state != 'X';
}

uint64_t disk_usage(const fs::path& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0) bytes += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return bytes;
}

}  // namespace

RemovedLeftovers remove_leftovers(const std::string& base) {
  RemovedLeftovers removed;
  DIR* dir = ::opendir(base.c_str());
  if (dir == nullptr) return removed;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    const auto pid = owner_pid(name);
    if (!pid || live_iotap(*pid)) continue;
    std::string path = base;
    path.append("/").append(name);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    // Its owner holds this lock while it lives (util/temp_dir.cpp); holding it here also keeps
    // two runs that start together from removing the same dir twice.
    const int lock = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (lock < 0) continue;
    if (::flock(lock, LOCK_EX | LOCK_NB) == 0) {
      const uint64_t bytes = disk_usage(path);
      std::error_code ec;
      fs::remove_all(path, ec);
      if (!ec) {
        ++removed.dirs;
        removed.bytes += bytes;
      }
    }
    ::close(lock);
  }
  ::closedir(dir);
  return removed;
}

void remove_leftovers_and_say() {
  const char* env = std::getenv("TMPDIR");
  const RemovedLeftovers removed = remove_leftovers(env != nullptr && *env != '\0' ? env : "/tmp");
  if (removed.dirs == 0) return;
  std::fprintf(stderr, "iotap: removed %d leftover temp dir%s of dead iotap runs (%s)\n",
               removed.dirs, removed.dirs == 1 ? "" : "s", human_bytes(removed.bytes).c_str());
}

std::string human_bytes(uint64_t bytes) {
  constexpr std::array<const char*, 4> kUnits{"bytes", "kB", "MB", "GB"};
  auto value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1000 && unit + 1 < kUnits.size()) {
    value /= 1000;
    ++unit;
  }
  std::array<char, 32> text{};
  if (unit == 0 || value >= 10) {
    std::snprintf(text.data(), text.size(), "%.0f %s", value, kUnits[unit]);
  } else {
    std::snprintf(text.data(), text.size(), "%.1f %s", value, kUnits[unit]);
  }
  return text.data();
}

}  // namespace iotap
