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

// The module's .ko with its symbol table: the kernel's own, or, where the kernel ships its modules
// compressed (6.12's .ko.xz, which libelf cannot read), the -dbg package's copy.
std::filesystem::path find_module_file(const std::string& kernel_release,
                                       const std::string& module) {
  const std::filesystem::path root = "/lib/modules/" + kernel_release + "/kernel";
  const std::filesystem::path debug_root =
      "/usr/lib/debug/lib/modules/" + kernel_release + "/kernel";
  bool compressed = false;
  for (const auto& dir : {root, debug_root}) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const auto& path = it->path();
      if (path.extension() == ".ko" && canonical(path.stem().string()) == canonical(module))
        return path;
      if (path.extension() != ".ko" && path.stem().extension() == ".ko" &&
          canonical(path.stem().stem().string()) == canonical(module))
        compressed = true;
    }
  }
  if (compressed)
    throw UserError("--kernel: kernel " + kernel_release + " ships module '" + module +
                    "' compressed, and its symbols are read from an uncompressed .ko: install "
                    "linux-image-" +
                    kernel_release + "-dbg (./setup.sh does)");
  throw UserError("--kernel: no module '" + module + "' in " + root.string() +
                  " (name it as lsmod does, e.g. raid0, dm_mod)");
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
