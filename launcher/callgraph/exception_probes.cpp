#include "callgraph/exception_probes.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>

#include "callgraph/probe_points.h"

namespace iotap::callgraph {
namespace {

struct ElfEnd {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfEnd>;

// The functions `file` defines (in .symtab, or in .dynsym when stripped) out of `wanted`.
std::set<std::string> defined_functions(const std::string& file,
                                        const std::set<std::string>& wanted) {
  std::set<std::string> found;
  if (elf_version(EV_CURRENT) == EV_NONE) return found;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return found;
  {
    const ElfHandle elf(elf_begin(fd, ELF_C_READ, nullptr));
    for (Elf_Scn* scn = elf ? elf_nextscn(elf.get(), nullptr) : nullptr; scn != nullptr;
         scn = elf_nextscn(elf.get(), scn)) {
      GElf_Shdr header;
      if (gelf_getshdr(scn, &header) == nullptr ||
          (header.sh_type != SHT_SYMTAB && header.sh_type != SHT_DYNSYM))
        continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      const size_t count = header.sh_entsize == 0 ? 0 : header.sh_size / header.sh_entsize;
      for (size_t i = 0; data != nullptr && i < count; ++i) {
        GElf_Sym symbol;
        if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr ||
            GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF)
          continue;
        const char* name = elf_strptr(elf.get(), header.sh_link, symbol.st_name);
        if (name != nullptr && wanted.contains(name)) found.insert(name);
      }
    }
  }
  ::close(fd);
  return found;
}

std::string probe_point(const std::string& file, const std::string& function) {
  // stap names a library by its real path; the guest has the same symlinks as the host.
  std::error_code ec;
  const auto real = std::filesystem::weakly_canonical(file, ec);
  return R"(process(")" + (ec ? file : real.string()) + R"(").function(")" + function + R"("))";
}

}  // namespace

ExceptionProbePoints exception_probe_points(const std::vector<std::string>& files) {
  // Every way an unwind starts: throw and std::rethrow_exception, pthread_exit and
  // cancellation, and `throw;` (which starts a forced unwind's second phase itself).
  const std::vector<std::string> unwinders{"_Unwind_RaiseException", "_Unwind_ForcedUnwind",
                                           "_Unwind_Resume_or_Rethrow"};
  const std::string catcher = "__cxa_begin_catch";
  std::set<std::string> wanted(unwinders.begin(), unwinders.end());
  wanted.insert(catcher);

  ExceptionProbePoints points;
  for (const auto& file : files) {
    // The path lands in a stap string literal; no library path of a real system holds these.
    if (file.find_first_of("\"\\") != std::string::npos) continue;
    const auto found = defined_functions(file, wanted);
    for (const auto& function : unwinders) {
      if (!found.contains(function) || !wanted.contains(function)) continue;
      if (!points.unwind.empty()) points.unwind += ", ";
      points.unwind += probe_point(file, function);
      wanted.erase(function);
    }
    if (found.contains(catcher) && points.catch_point.empty())
      points.catch_point = probe_point(file, catcher);
  }
  return points;
}

}  // namespace iotap::callgraph
