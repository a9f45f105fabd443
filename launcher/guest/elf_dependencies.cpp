#include "iotap/guest/elf_dependencies.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "iotap/util/error.h"

namespace iotap::guest {
namespace {

struct DynamicInfo {
  bool is_elf = false;
  int elf_class =
      ELFCLASSNONE;  // the loader only takes libraries of the program's class and machine
  int machine = EM_NONE;
  std::string interpreter;
  std::vector<std::string> needed;
  std::vector<std::string> search_path;  // DT_RUNPATH / DT_RPATH, $ORIGIN expanded
};

std::vector<std::string> split_path_list(const std::string& list, const std::string& origin) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(':', start), list.size());
    std::string dir = list.substr(start, end - start);
    for (const std::string token : {"$ORIGIN", "${ORIGIN}"}) {
      if (dir.starts_with(token)) dir.replace(0, token.size(), origin);
    }
    if (!dir.empty()) out.push_back(dir);
    start = end + 1;
  }
  return out;
}

DynamicInfo read_dynamic(const std::string& path) {
  DynamicInfo info;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UserError("cannot read '" + path + "'");
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    info.is_elf = true;
    GElf_Ehdr ehdr;
    if (gelf_getehdr(elf, &ehdr) != nullptr) {
      info.elf_class = ehdr.e_ident[EI_CLASS];
      info.machine = ehdr.e_machine;
    }
    size_t phnum = 0;
    elf_getphdrnum(elf, &phnum);
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_INTERP)
        continue;
      size_t size = 0;
      const char* raw = elf_rawfile(elf, &size);
      if (raw != nullptr && phdr.p_offset + phdr.p_filesz <= size && phdr.p_filesz > 0) {
        info.interpreter.assign(raw + phdr.p_offset, strnlen(raw + phdr.p_offset, phdr.p_filesz));
      }
    }
    const std::string origin = std::filesystem::path(path).parent_path().string();
    Elf_Scn* section = nullptr;
    while ((section = elf_nextscn(elf, section)) != nullptr) {
      GElf_Shdr shdr;
      if (gelf_getshdr(section, &shdr) == nullptr || shdr.sh_type != SHT_DYNAMIC) continue;
      Elf_Data* data = elf_getdata(section, nullptr);
      if (data == nullptr || shdr.sh_entsize == 0) continue;
      for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
        GElf_Dyn dyn;
        if (gelf_getdyn(data, static_cast<int>(i), &dyn) == nullptr) break;
        if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH) continue;
        const char* text = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
        if (text == nullptr) continue;
        if (dyn.d_tag == DT_NEEDED) {
          info.needed.emplace_back(text);
        } else {
          for (auto& dir : split_path_list(text, origin)) info.search_path.push_back(dir);
        }
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  return info;
}

std::vector<std::string> system_library_dirs() {
  std::vector<std::string> dirs;
  // Debian's multiarch directories come from /etc/ld.so.conf.d; read them the simple way
  // (one directory per line, comments and include lines skipped).
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/etc/ld.so.conf.d", ec)) {
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.starts_with('/')) dirs.push_back(line);
    }
  }
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                          "/usr/lib64", "/lib", "/usr/lib"}) {
    dirs.emplace_back(dir);
  }
  return dirs;
}

std::string shebang_interpreter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  if (!line.starts_with("#!")) return "";
  line = line.substr(2);
  const auto start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  const auto end = line.find_first_of(" \t\r", start);
  return line.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

std::vector<std::string> runtime_dependencies(const std::string& program) {
  std::vector<std::string> result;
  std::set<std::string> seen;
  const auto system_dirs = system_library_dirs();

  std::vector<std::string> pending{program};
  bool first = true;
  while (!pending.empty()) {
    const std::string path = pending.back();
    pending.pop_back();
    DynamicInfo info = read_dynamic(path);
    if (!info.is_elf) {
      const std::string interpreter = shebang_interpreter(path);
      if (!interpreter.empty() && seen.insert(interpreter).second) {
        result.push_back(interpreter);
        pending.push_back(interpreter);
      }
      first = false;
      continue;
    }
    if (!info.interpreter.empty() && seen.insert(info.interpreter).second)
      result.push_back(info.interpreter);
    std::vector<std::string> dirs = info.search_path;
    dirs.insert(dirs.end(), system_dirs.begin(), system_dirs.end());
    for (const auto& name : info.needed) {
      std::string found;
      if (name.find('/') != std::string::npos) {
        found = name;
      } else {
        // /usr/lib32 and friends hold libraries of the same name for other ABIs: skip them
        // as the dynamic loader does.
        for (const auto& dir : dirs) {
          std::string candidate = dir;
          candidate.append("/").append(name);
          if (::access(candidate.c_str(), R_OK) != 0) continue;
          const DynamicInfo library = read_dynamic(candidate);
          if (library.is_elf && library.elf_class == info.elf_class &&
              library.machine == info.machine) {
            found = candidate;
            break;
          }
        }
      }
      if (found.empty()) {
        throw UserError("'" + (first ? program : path) + "' needs " + name +
                        ", which is not on this machine (install the package that provides it)");
      }
      if (seen.insert(found).second) {
        result.push_back(found);
        pending.push_back(found);
      }
    }
    first = false;
  }
  return result;
}

}  // namespace iotap::guest
