#include "iotap/stap/module_name.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

#include "elf_sections.h"
#include "iotap/stap/module_info.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"

namespace iotap::stap {
namespace {

// struct module's name[MODULE_NAME_LEN]: 64 - sizeof(unsigned long), the same on every 64-bit
// architecture and kernel since 2.6.
constexpr size_t kModuleNameLen = 64 - sizeof(uint64_t);
constexpr size_t kRandomBytes = 6;
// A run's module name: this prefix and kRandomBytes in lowercase hex.
constexpr std::string_view kRunPrefix = "iotap_";
constexpr std::string_view kHexDigits = "0123456789abcdef";

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};

struct FileRange {
  size_t offset = 0;
  size_t size = 0;
};

// Where the section `wanted` lies in the file; none when there is no such section with bytes.
std::optional<FileRange> section_in_file(const std::string& path, const char* wanted) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  elf_version(EV_CURRENT);
  std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ, nullptr));
  std::optional<FileRange> range;
  GElf_Shdr header;
  if (section_named(elf.get(), wanted, header) != nullptr)
    range = FileRange{header.sh_offset, header.sh_size};
  elf.reset();
  ::close(fd);
  return range;
}

}  // namespace

std::string run_module_name() {
  std::array<unsigned char, kRandomBytes> random{};
  if (::getrandom(random.data(), random.size(), 0) != static_cast<ssize_t>(random.size()))
    throw std::system_error(errno, std::generic_category(), "getrandom");
  std::string name(kRunPrefix);
  for (const unsigned char byte : random) {
    name += kHexDigits[byte >> 4U];
    name += kHexDigits[byte & 0xfU];
  }
  return name;
}

bool is_run_module_name(std::string_view name) {
  return name.size() == kRunPrefix.size() + 2 * kRandomBytes && name.starts_with(kRunPrefix) &&
         name.find_first_not_of(kHexDigits, kRunPrefix.size()) == std::string_view::npos;
}

std::vector<LoadedRunModule> loaded_run_modules(std::string_view proc_modules) {
  std::vector<LoadedRunModule> modules;
  for_each_line(proc_modules, [&modules](std::string_view line) {
    std::istringstream fields{std::string(line)};
    LoadedRunModule module;
    unsigned long size = 0;
    if (fields >> module.name >> size >> module.users && is_run_module_name(module.name))
      modules.push_back(std::move(module));
  });
  return modules;
}

std::string copy_module_named(const std::string& module, const std::string& name,
                              const std::string& dir) {
  if (name.empty() || name.size() >= kModuleNameLen ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
    throw UserError("'" + name + "' cannot name a kernel module (a-z, 0-9 and _, at most " +
                    std::to_string(kModuleNameLen - 1) + " characters)");
  const std::string old_name = read_module_info(module).name;
  std::string bytes = read_file(module);
  const std::optional<FileRange> section = section_in_file(module, ".gnu.linkonce.this_module");
  if (!section || section->offset > bytes.size() || section->size > bytes.size() - section->offset)
    throw UserError(module +
                    " has no .gnu.linkonce.this_module section: it is not a module "
                    "SystemTap made (give the .ko file that --save-module wrote)");
  // The section is zeros but for the name (its pointers are filled in by relocations at load),
  // as staprun -R relies on too: the name is the first place it appears, followed by the NULs
  // that pad the field to its end.
  const std::string_view bytes_view(bytes);
  const std::string_view field_area = bytes_view.substr(section->offset, section->size);
  const size_t at = field_area.find(std::string(old_name) + '\0');
  const bool fits =
      at != std::string_view::npos && at + kModuleNameLen <= field_area.size() &&
      std::ranges::all_of(field_area.substr(at + old_name.size(), kModuleNameLen - old_name.size()),
                          [](char c) { return c == '\0'; });
  if (!fits)
    throw UserError(module + ": its name '" + old_name +
                    "' is not where a module's name field is (the module is damaged, or not one "
                    "SystemTap made): compile it again");
  std::string field = name;
  field.resize(kModuleNameLen, '\0');
  bytes.replace(section->offset + at, kModuleNameLen, field);
  std::string path = dir + "/" + name + ".ko";
  write_file(path, bytes, 0600);
  return path;
}

std::string module_for_this_run(const std::string& module) {
  return copy_module_named(module, run_module_name(),
                           std::filesystem::path(module).parent_path().string());
}

}  // namespace iotap::stap
