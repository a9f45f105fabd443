#pragma once
// Writes the kernel's initramfs format (cpio "newc", see the kernel's
// Documentation/driver-api/early-userspace/buffer-format.rst) straight from a list of entries,
// with no staging tree. Timestamps and owners are fixed, so equal inputs give equal bytes. The
// guest boots the cached base image and unpacks each run's files, a second archive, with
// busybox's cpio.
#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <string_view>

namespace iotap::guest {

class CpioWriter {
 public:
  explicit CpioWriter(const std::string& path);

  // Paths are absolute guest paths; missing parent directories are added.
  void add_directory(const std::string& path);
  void add_file(const std::string& path, std::string_view content, uint32_t mode = 0644);
  void add_host_file(const std::string& path, const std::string& host_path, uint32_t mode);
  void add_symlink(const std::string& path, const std::string& target);
  [[nodiscard]] bool contains(const std::string& path) const { return written_.contains(path); }

  // Writes the trailer and closes the file; throws on any write error.
  void finish();

 private:
  void add_parents(const std::string& path);
  void header(const std::string& path, uint32_t mode, uint64_t size);
  void pad();

  std::ofstream out_;
  std::string path_;
  std::set<std::string> written_;
  uint64_t offset_ = 0;
  uint32_t next_inode_ = 1;
};

}  // namespace iotap::guest
