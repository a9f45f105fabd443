#include "iotap/usdt/stapsdt_notes.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "iotap/util/file_kind.h"

namespace iotap::usdt {
namespace {

struct ElfEnd {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfEnd>;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

// libelf refuses every call until told which ELF version the caller speaks.
bool libelf_ready() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  return ready;
}

Unexpected not_elf(std::string_view label) {
  return Unexpected{std::string(label) +
                    " is not an ELF file (name a compiled program or shared library, not a "
                    "script or an archive)"};
}

Expected<ProbeList> read_elf(Elf* elf, std::string_view label) {
  const std::string who(label);
  if (elf == nullptr) {
    const int error = elf_errno();
    return Unexpected{who + " cannot be read as an ELF file" +
                      (error == 0 ? "" : std::string(": ") + elf_errmsg(error)) +
                      " (is it truncated?)"};
  }
  if (elf_kind(elf) != ELF_K_ELF) {
    return not_elf(label);
  }
  auto notes = read_stapsdt_notes(elf);
  if (!notes) {
    return Unexpected{who + " " + notes.error(), notes.error_is_no_probes()};
  }
  return notes;
}

// Only regular files are opened: see util/file_kind.h for why.
std::optional<Unexpected> not_a_binary(const std::string& path, mode_t mode) {
  if (S_ISREG(mode)) {
    return std::nullopt;
  }
  if (S_ISDIR(mode)) {
    return Unexpected{path + " is a directory (name the program's binary inside it)"};
  }
  return Unexpected{path + " is " + std::string(non_regular_kind(mode)) +
                    ", not a program (name a compiled program or shared library on disk)"};
}

}  // namespace

Expected<ProbeList> read_probes(const std::string& path) {
  if (!libelf_ready()) {
    return Unexpected{"libelf does not support this ELF version (reinstall libelf)"};
  }
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    const int error = errno;
    switch (error) {
      case ENOENT:
      case ENOTDIR:
        return Unexpected{path + " does not exist (check the path, or build it first)"};
      case EACCES:
        return Unexpected{path + " is not readable: permission denied (check its permissions)"};
      default:
        return Unexpected{path + " cannot be examined: " + std::strerror(error)};
    }
  }
  if (auto problem = not_a_binary(path, status.st_mode)) {
    return *problem;
  }
  // O_NONBLOCK: should the path have become a FIFO since the stat, open must not wait for a
  // writer; the fstat below then rejects it. Reads of a regular file ignore the flag.
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) {
    const int error = errno;
    switch (error) {
      case ENOENT:
        return Unexpected{path + " does not exist (check the path, or build it first)"};
      case EACCES:
      case EPERM:
        return Unexpected{path + " is not readable: permission denied (check its permissions)"};
      default:
        return Unexpected{path + " cannot be opened: " + std::strerror(error)};
    }
  }
  if (::fstat(fd.get(), &status) != 0) {
    return Unexpected{path + " cannot be examined: " + std::strerror(errno)};
  }
  if (auto problem = not_a_binary(path, status.st_mode)) {
    return *problem;
  }
  // ELF_C_READ rather than an mmap: a file truncated while we read it then fails a read()
  // instead of killing us with SIGBUS.
  const ElfHandle elf(elf_begin(fd.get(), ELF_C_READ, nullptr));
  return read_elf(elf.get(), path);
}

Expected<ProbeList> read_probes_from_image(std::span<const std::uint8_t> image,
                                           std::string_view label) {
  if (!libelf_ready()) {
    return Unexpected{"libelf does not support this ELF version (reinstall libelf)"};
  }
  // elf_memory rejects an empty buffer as a bad argument; to the user it is just not ELF.
  if (image.empty()) {
    return not_elf(label);
  }
  // elf_memory may convert data in place, so it gets a copy it is free to scribble on.
  std::vector<char> copy(image.begin(), image.end());
  const ElfHandle elf(elf_memory(copy.data(), copy.size()));
  return read_elf(elf.get(), label);
}

}  // namespace iotap::usdt
