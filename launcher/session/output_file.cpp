#include "iotap/session/output_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "iotap/util/error.h"
#include "iotap/util/file_kind.h"

namespace iotap::verbs {

namespace {

[[noreturn]] void cannot_write(std::string_view option, const std::string& path,
                               const std::string& why) {
  throw UserError("cannot write " + std::string(option) + " '" + path + "': " + why +
                  " (name a file in a directory you can write to)");
}

// Kernel interfaces (/proc, /sys, ...): root may open their files for writing, and then every
// write fails, or worse, means something to the kernel. A report never belongs there.
bool on_kernel_filesystem(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case BPF_FS_MAGIC:
    case PSTOREFS_MAGIC:
    case EFIVARFS_MAGIC:
      return true;
    default:
      return false;
  }
}

// What stops PATH from taking the report, without creating or truncating it; empty when nothing
// does. Accepted: a regular file that opens for writing, a new file in a writable directory, and
// streams: a terminal, /dev/null, a pipe (/dev/stdout, -o >(cmd)).
std::string write_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a directory";
    if (S_ISBLK(st.st_mode)) return "it is a block device; reports go to files";
    if (on_kernel_filesystem(path))
      return "it is a kernel interface file, not a place for a report";
    if (S_ISFIFO(st.st_mode)) return "";  // opening it would wait for its reader
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) return "it is not a regular file";
    // Opened, not truncated: an old report survives a run that fails before it writes.
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    return "";
  }
  if (errno != ENOENT) return std::strerror(errno);
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec)) return "no directory '" + parent.string() + "'";
  if (on_kernel_filesystem(parent)) return "'" + parent.string() + "' is a kernel interface";
  return ::access(parent.c_str(), W_OK | X_OK) == 0 ? "" : std::strerror(errno);
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string_view option)
    : path_(std::move(path)), option_(option) {
  if (path_.empty()) return;
  if (const std::string problem = write_problem(path_); !problem.empty())
    cannot_write(option_, path_, problem);
}

void OutputFile::write(std::string_view text) {
  if (path_.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  if (!file_) {
    file_.reset(std::fopen(path_.c_str(), "wb"));
    if (!file_) cannot_write(option_, path_, std::strerror(errno));
  }
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size() ||
      std::fflush(file_.get()) != 0)
    cannot_write(option_, path_, std::strerror(errno));
}

void check_replaceable_file(const std::string& path, std::string_view option) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) cannot_write(option, path, "it is a directory");
    if (on_kernel_filesystem(path)) cannot_write(option, path, "it is a kernel interface file");
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      cannot_write(option, path,
                   "it is " + std::string(non_regular_kind(st.st_mode)) + ", not a regular file");
  } else if (errno != ENOENT) {
    cannot_write(option, path, std::strerror(errno));
  }
  std::error_code ec;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec))
    cannot_write(option, path, "no directory '" + parent.string() + "'");
  if (on_kernel_filesystem(parent))
    cannot_write(option, path, "'" + parent.string() + "' is a kernel interface");
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    cannot_write(option, path, "'" + parent.string() + "': " + std::strerror(errno));
}

bool OutputFile::is_terminal() const {
  return path_.empty() && ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace iotap::verbs
