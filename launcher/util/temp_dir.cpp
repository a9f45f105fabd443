#include "iotap/util/temp_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "iotap/util/error.h"

namespace iotap {

std::string temp_base() {
  const char* env = std::getenv("TMPDIR");
  const bool from_env = env != nullptr && *env != '\0';
  std::string base = from_env ? env : "/tmp";
  const std::string named = from_env ? "TMPDIR '" + base + "'" : "the temp directory '/tmp'";
  const std::string fix = from_env ? " (point TMPDIR at a writable directory, or unset it)"
                                   : " (set TMPDIR to a writable directory)";
  struct stat st {};
  if (::stat(base.c_str(), &st) != 0) {
    if (errno == ENOENT) throw UserError(named + " does not exist" + fix);
    throw UserError(named + ": " + std::strerror(errno) + fix);
  }
  if (!S_ISDIR(st.st_mode)) throw UserError(named + " is not a directory" + fix);
  if (::access(base.c_str(), W_OK | X_OK) != 0)
    throw UserError(named + " is not writable: " + std::strerror(errno) + fix);
  return base;
}

std::string TempDir::pattern(const std::string& prefix) {
  return pattern_in(temp_base(), prefix);
}

std::string TempDir::pattern_in(const std::string& parent, const std::string& prefix) {
  return parent + "/" + prefix + "." + std::to_string(::getpid()) + ".XXXXXX";
}

TempDir::TempDir(const std::string& prefix) : TempDir(prefix, temp_base()) {}

TempDir::TempDir(const std::string& prefix, const std::string& parent) {
  const std::string pattern = pattern_in(parent, prefix);
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  // mkdtemp creates the directory with mode 0700: private to this user.
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw UserError("cannot create a temp directory like '" + pattern +
                    "': " + std::strerror(errno) + " (point TMPDIR at a writable directory)");
  }
  path_ = buffer.data();
  // The lock says "in use" to other iotap runs even across pid namespaces, where the pid in the
  // name means nothing; the kernel drops it when this process dies, however it dies.
  lock_fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ >= 0) ::flock(lock_fd_, LOCK_EX | LOCK_NB);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace iotap
