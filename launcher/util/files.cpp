#include "iotap/util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "iotap/util/error.h"
#include "iotap/util/file_kind.h"
#include "iotap/util/stop_signal.h"

namespace iotap {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string size_text(uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits{"bytes", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), value == std::floor(value) ? "%.0f %s" : "%.1f %s", value,
                kUnits.at(unit));
  return text.data();
}

std::string read_input_file(const std::string& path, std::string_view what, uint64_t max_bytes) {
  const auto cannot_read = [&path](int error) {
    return UserError("cannot read '" + path + "': " + std::strerror(error));
  };
  const auto too_large = [&](uint64_t size) {
    return UserError(path + " is " + size_text(size) + ": more than iotap reads as " +
                     std::string(what) + " (at most " + size_text(max_bytes) + ")");
  };
  const auto check = [&](const struct stat& st) {
    if (const std::string_view kind = non_regular_kind(st.st_mode); !kind.empty())
      throw UserError(path + " is " + std::string(kind) + ", not " + std::string(what) +
                      " (name a file on disk)");
    if (static_cast<uint64_t>(st.st_size) > max_bytes)
      throw too_large(static_cast<uint64_t>(st.st_size));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw cannot_read(errno);
  check(st);  // before open(): a FIFO is never opened, a device never touched
  // Non-blocking, and checked again once open: the path may have been replaced in between.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw cannot_read(errno);
  std::string content;
  try {
    if (::fstat(fd, &st) != 0) throw cannot_read(errno);
    check(st);
    content.reserve(static_cast<size_t>(st.st_size));
    std::array<char, 1 << 16> buffer{};
    while (true) {
      throw_if_stopped("while reading " + path);
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw cannot_read(errno);
      if (n == 0) break;
      content.append(buffer.data(), static_cast<size_t>(n));
      // A file that grows while it is read is held to the same limit.
      if (content.size() > max_bytes) throw too_large(content.size());
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return content;
}

void write_file(const std::string& path, std::string_view content, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw UserError("cannot write '" + path + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw UserError("cannot write '" + path + "': " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) throw UserError("cannot write '" + path + "': " + std::strerror(errno));
}

std::vector<std::string> files_under(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code error;
  for (fs::recursive_directory_iterator
           it(dir, fs::directory_options::skip_permission_denied, error),
       end;
       !error && it != end; it.increment(error)) {
    std::error_code ignored;
    if (it->is_regular_file(ignored))
      files.push_back(fs::relative(it->path(), dir, ignored).string());
  }
  std::ranges::sort(files);
  return files;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace iotap
