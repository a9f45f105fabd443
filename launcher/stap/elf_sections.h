#pragma once
// A module's sections by name, for the readers of its .modinfo (module_info.cpp) and of its
// this_module (module_name.cpp).
#include <gelf.h>

#include <cstring>

namespace iotap::stap {

// The section named `wanted` with bytes in the file (not SHT_NOBITS), and its header; null when
// there is none.
inline Elf_Scn* section_named(Elf* elf, const char* wanted, GElf_Shdr& header) {
  size_t names = 0;
  if (elf == nullptr || elf_getshdrstrndx(elf, &names) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    if (gelf_getshdr(scn, &header) == nullptr || header.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, names, header.sh_name);
    if (name != nullptr && std::strcmp(name, wanted) == 0) return scn;
  }
  return nullptr;
}

}  // namespace iotap::stap
