#include "iotap/session/output_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "iotap/util/error.h"
#include "iotap/util/file_kind.h"
#include "iotap/util/stop_signal.h"

namespace iotap::session {

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
    if (S_ISFIFO(st.st_mode)) return "";  // opened at the first write, its reader waited for
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

// Waits until `fd` can take a write or a stop signal comes (Stopped).
void wait_writable(int fd, const std::string& path) {
  std::array<pollfd, 2> fds{pollfd{fd, POLLOUT, 0}, pollfd{stop_fd(), POLLIN, 0}};
  while (::poll(fds.data(), fds.size(), -1) < 0 && errno == EINTR) {
  }
  if (fds[1].revents != 0) throw Stopped(take_stop(), "while writing " + path);
}

// The permissions a new file gets: 0666 less the umask.
mode_t new_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string_view option, Replace replace)
    : path_(std::move(path)), option_(option), replace_(replace) {
  if (path_.empty()) return;
  if (const std::string problem = write_problem(path_); !problem.empty())
    cannot_write(option_, path_, problem);
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) identity_ = Identity{st.st_dev, st.st_ino, ""};
    return;
  }
  // A file yet to be made: its directory (checked above) and its name.
  namespace fs = std::filesystem;
  fs::path parent = fs::path(path_).parent_path();
  if (parent.empty()) parent = ".";
  if (::stat(parent.c_str(), &st) == 0)
    identity_ = Identity{st.st_dev, st.st_ino, fs::path(path_).filename().string()};
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      option_(std::move(other.option_)),
      replace_(other.replace_),
      identity_(std::move(other.identity_)),
      fd_(std::exchange(other.fd_, -1)),
      temporary_(std::move(other.temporary_)) {
  other.temporary_.clear();
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::wait_for_reader() {
  std::fprintf(stderr,
               "iotap: %s '%s' is a FIFO that no process reads yet: waiting for one "
               "(Ctrl-C gives up)\n",
               option_.c_str(), path_.c_str());
  while (true) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd_ >= 0 || errno != ENXIO) return;
    // No event says a reader came: look again every 100 ms, a stop signal at once.
    pollfd stop{stop_fd(), POLLIN, 0};
    if (::poll(&stop, 1, 100) > 0)
      throw Stopped(take_stop(), "while waiting for a reader of " + option_ + " '" + path_ + "'");
  }
}

void OutputFile::open_file() {
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (replace_ == Replace::kAtCommit && (!exists || S_ISREG(st.st_mode))) {
    // Beside the file (its real place, when the path is a symbolic link), so that the rename
    // stays on one filesystem.
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path target = exists ? fs::canonical(path_, error) : fs::path(path_);
    std::string name = (error ? fs::path(path_) : target).string() + ".iotap-partial.XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ >= 0) {
      temporary_ = name;
      ::fchmod(fd_, exists ? (st.st_mode & 07777) : new_file_mode());
      return;
    }
    // A directory that takes no new file (a writable file in a read-only one): written in place.
  }
  // Not blocking: a FIFO without a reader is waited for in a way a stop signal ends.
  fd_ =
      ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd_ < 0 && errno == ENXIO) wait_for_reader();
  if (fd_ < 0) cannot_write(option_, path_, std::strerror(errno));
}

void OutputFile::write(std::string_view text) {
  if (path_.empty()) {
    // Once stdout's reader has gone (`iotap run x.stp | head`), the rest has nowhere to go.
    static bool reader_gone = false;
    if (reader_gone) return;
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      const int error = errno;
      std::clearerr(stdout);  // said here: main()'s own check of stdout at the end stays quiet
      if (error == EPIPE) {
        // As a pipeline's writer ends when its reader does, but stopping the run as a signal
        // would (the guest's run ended, temp dirs removed), and exiting 141, as for SIGPIPE.
        reader_gone = true;
        request_stop(SIGPIPE);
        return;
      }
      throw UserError(std::string("cannot write the report to stdout: ") + std::strerror(error));
    }
    return;
  }
  if (fd_ < 0) open_file();
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      wait_writable(fd_, path_);
      continue;
    }
    if (n < 0) cannot_write(option_, path_, std::strerror(errno));
    text.remove_prefix(static_cast<size_t>(n));
  }
}

void OutputFile::commit() {
  if (temporary_.empty()) return;
  if (::fsync(fd_) != 0 || ::close(std::exchange(fd_, -1)) != 0)
    cannot_write(option_, path_, std::strerror(errno));
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path target = fs::exists(path_, error) ? fs::canonical(path_, error) : fs::path(path_);
  if (::rename(temporary_.c_str(), (error ? fs::path(path_) : target).c_str()) != 0)
    cannot_write(option_, path_, std::strerror(errno));
  temporary_.clear();
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

void OutputFile::refuse_input(const std::string& input, std::string_view what) const {
  struct stat st {};
  if (!identity_ || !identity_->name.empty() || ::stat(input.c_str(), &st) != 0) return;
  if (Identity{st.st_dev, st.st_ino, ""} == *identity_)
    throw UserError(option_ + " '" + path_ + "' is " + std::string(what) + " ('" + input +
                    "'): writing it would replace it; name another file");
}

void OutputFile::refuse_same_file(std::initializer_list<const OutputFile*> outputs) {
  for (const auto* a = outputs.begin(); a != outputs.end(); ++a) {
    for (const auto* b = std::next(a); b != outputs.end(); ++b) {
      if (*a == nullptr || *b == nullptr || !(*a)->identity_ || !(*b)->identity_) continue;
      if ((*a)->identity_ == (*b)->identity_)
        throw UserError((*a)->option_ + " '" + (*a)->path_ + "' and " + (*b)->option_ + " '" +
                        (*b)->path_ + "' name the same file: one would replace the other; name " +
                        "two files");
    }
  }
}

}  // namespace iotap::session
