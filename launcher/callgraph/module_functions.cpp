#include "module_functions.h"

#include <fnmatch.h>
#include <gelf.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "elf_functions.h"
#include "iotap/util/error.h"

namespace iotap::callgraph {
namespace {

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
  auto names = defined_function_names(file.string(), SymbolTables::kSymtabOnly);
  if (!names) throw UserError("--kernel: cannot open " + file.string());
  return std::move(*names);
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
