#include "callgraph/module_functions.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include "util/error.h"

namespace iotap::callgraph {
namespace {

struct ElfEnd {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfEnd>;

// Module names treat '-' and '_' alike (dm-mod.ko is loaded as dm_mod).
std::string canonical(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::filesystem::path find_module_file(const std::string& kernel_release,
                                       const std::string& module) {
  const std::filesystem::path root = "/lib/modules/" + kernel_release + "/kernel";
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto& path = it->path();
    if (path.extension() == ".ko" && canonical(path.stem().string()) == canonical(module))
      return path;
  }
  throw UserError("--kernel: no module '" + module + "' in " + root.string() +
                  " (an uncompressed .ko; name it as lsmod does, e.g. raid0, dm_mod)");
}

std::set<std::string> text_symbols(const std::filesystem::path& file) {
  if (elf_version(EV_CURRENT) == EV_NONE)
    throw UserError("libelf does not support this ELF version (reinstall libelf)");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UserError("--kernel: cannot open " + file.string());
  std::set<std::string> names;
  {
    const ElfHandle elf(elf_begin(fd, ELF_C_READ, nullptr));
    for (Elf_Scn* scn = elf ? elf_nextscn(elf.get(), nullptr) : nullptr; scn != nullptr;
         scn = elf_nextscn(elf.get(), scn)) {
      GElf_Shdr header;
      if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_SYMTAB) continue;
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

}  // namespace

std::vector<std::string> module_functions(const std::string& kernel_release,
                                          const std::string& module, const std::string& glob) {
  const auto file = find_module_file(kernel_release, module);
  std::vector<std::string> matched;
  for (const auto& name : text_symbols(file)) {
    // "raid0_run.cold", "map_sector.isra.0": parts of a function, not functions to probe.
    if (name.find('.') != std::string::npos) continue;
    // Module entry and exit points run once, at load and unload.
    if (name == "init_module" || name == "cleanup_module") continue;
    if (::fnmatch(glob.c_str(), name.c_str(), 0) == 0) matched.push_back(name);
  }
  if (matched.empty())
    throw UserError("--kernel " + module + ":" + glob + ": no function of " + file.string() +
                    " matches");
  return matched;
}

}  // namespace iotap::callgraph
