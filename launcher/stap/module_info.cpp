#include "iotap/stap/module_info.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "elf_sections.h"
#include "iotap/util/error.h"
#include "iotap/util/file_kind.h"

namespace iotap::stap {

std::string ModuleInfo::release() const {
  return vermagic.substr(0, vermagic.find(' '));
}

ModuleInfo parse_modinfo(std::string_view section) {
  ModuleInfo info;
  while (!section.empty()) {
    const size_t end = std::min(section.find('\0'), section.size());
    const std::string_view entry = section.substr(0, end);
    section.remove_prefix(std::min(end + 1, section.size()));
    if (entry.starts_with("name=")) info.name = entry.substr(5);
    if (entry.starts_with("vermagic=")) info.vermagic = entry.substr(9);
  }
  return info;
}

namespace {

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};

// The .modinfo section's bytes; empty when there is none.
std::string modinfo_section(Elf* elf) {
  GElf_Shdr header;
  Elf_Scn* scn = section_named(elf, ".modinfo", header);
  Elf_Data* data = scn == nullptr ? nullptr : elf_getdata(scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return {};
  return {static_cast<const char*>(data->d_buf), data->d_size};
}

}  // namespace

ModuleInfo read_module_info(const std::string& path) {
  // Not blocking: a FIFO given by mistake is said to be no module, not waited on.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw UserError("cannot open module '" + path + "': " + std::strerror(errno) +
                    " (give the .ko file that --save-module wrote)");
  // libelf reads a file it cannot map to its end: /dev/zero has none.
  struct stat st {};
  const bool stated = ::fstat(fd, &st) == 0;
  if (!stated || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UserError(path + " is " +
                    (stated ? std::string(non_regular_kind(st.st_mode)) : "unreadable") +
                    ", not a kernel module (give the .ko file that --save-module wrote)");
  }
  elf_version(EV_CURRENT);
  std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ, nullptr));
  std::string section;
  const bool relocatable = elf && elf_kind(elf.get()) == ELF_K_ELF && [&] {
    GElf_Ehdr header;
    return gelf_getehdr(elf.get(), &header) != nullptr && header.e_type == ET_REL;
  }();
  if (relocatable) section = modinfo_section(elf.get());
  elf.reset();
  ::close(fd);
  ModuleInfo info = parse_modinfo(section);
  if (info.name.empty() || info.vermagic.empty())
    throw UserError("'" + path +
                    "' is not a kernel module (no .modinfo with a name and a vermagic): give the "
                    ".ko file that --save-module wrote");
  return info;
}

}  // namespace iotap::stap
