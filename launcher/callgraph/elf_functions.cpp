#include "elf_functions.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <memory>

namespace iotap::callgraph {
namespace {

struct ElfEnd {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfEnd>;

bool is_read(const GElf_Shdr& header, SymbolTables tables) {
  return header.sh_type == SHT_SYMTAB ||
         (tables == SymbolTables::kSymtabAndDynsym && header.sh_type == SHT_DYNSYM);
}

}  // namespace

std::optional<std::set<std::string>> defined_function_names(const std::string& file,
                                                            SymbolTables tables) {
  if (elf_version(EV_CURRENT) == EV_NONE) return std::nullopt;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::set<std::string> names;
  {
    const ElfHandle elf(elf_begin(fd, ELF_C_READ, nullptr));
    for (Elf_Scn* scn = elf ? elf_nextscn(elf.get(), nullptr) : nullptr; scn != nullptr;
         scn = elf_nextscn(elf.get(), scn)) {
      GElf_Shdr header;
      if (gelf_getshdr(scn, &header) == nullptr || !is_read(header, tables)) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      const size_t count = header.sh_entsize == 0 ? 0 : header.sh_size / header.sh_entsize;
      for (size_t i = 0; data != nullptr && i < count; ++i) {
        GElf_Sym symbol;
        if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr ||
            GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF)
          continue;
        const char* name = elf_strptr(elf.get(), header.sh_link, symbol.st_name);
        if (name != nullptr && *name != '\0') names.insert(name);
      }
    }
  }
  ::close(fd);
  return names;
}

}  // namespace iotap::callgraph
