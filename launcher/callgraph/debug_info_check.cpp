#include "iotap/callgraph/debug_info_check.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

namespace iotap::callgraph {
namespace {

struct ElfEnd {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfEnd>;

class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int fd() const { return fd_; }

 private:
  int fd_;
};

bool has_section(Elf* elf, std::string_view wanted) {
  size_t names_index = 0;
  if (elf_getshdrstrndx(elf, &names_index) != 0) return false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) == nullptr) continue;
    const char* name = elf_strptr(elf, names_index, header.sh_name);
    // A separate debug file keeps a stripped section's header as SHT_NOBITS: not there.
    if (name != nullptr && wanted == name && header.sh_type != SHT_NOBITS) return true;
  }
  return false;
}

}  // namespace

std::string missing_debug_info(const std::string& binary) {
  if (elf_version(EV_CURRENT) == EV_NONE)
    return "libelf does not support this ELF version (reinstall libelf)";
  const ReadOnlyFile file(binary);
  if (file.fd() < 0) return binary + " cannot be opened: " + std::strerror(errno);
  const ElfHandle elf(elf_begin(file.fd(), ELF_C_READ, nullptr));
  if (elf == nullptr || elf_kind(elf.get()) != ELF_K_ELF)
    return binary +
           " is not an ELF file: iotap callgraph traces a compiled program (name the binary, "
           "not a script that runs it)";
  if (!has_section(elf.get(), ".symtab"))
    return binary +
           " is stripped (no .symtab): rebuild it with -g and without stripping (no -s, no "
           "strip, no install -s), then trace that build";
  if (!has_section(elf.get(), ".debug_info"))
    return binary +
           " has no debug info (no .debug_info): rebuild it with -g (CMake: "
           "-DCMAKE_BUILD_TYPE=RelWithDebInfo or Debug) so its functions' arguments can be read";
  return "";
}

}  // namespace iotap::callgraph
