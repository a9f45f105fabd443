#include "iotap/runner/kernel_tree.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"

namespace iotap::runner {

namespace fs = std::filesystem;

std::string system_map_from_kallsyms(const std::string& kallsyms) {
  std::istringstream lines(kallsyms);
  std::string map;
  std::string line;
  while (std::getline(lines, line)) {
    // "ffffffffa9e10fe8 T __schedule": three words; module symbols carry a fourth, "[raid0]".
    if (line.find('\t') != std::string::npos || line.find('[') != std::string::npos) continue;
    if (std::count(line.begin(), line.end(), ' ') != 2) continue;
    map += line;
    map += '\n';
  }
  return map;
}

namespace {

// Makes `tree` (unless it is there): the headers' entries as symbolic links (but their System.map
// and vmlinux), plus what `add` puts in the partial tree (System.map, vmlinux). Built under a
// private name and renamed, so that two iotap processes can race (the last rename wins).
std::string make_kernel_tree(const fs::path& tree, const std::string& release,
                             const std::function<void(const fs::path&)>& add) {
  const fs::path headers = fs::canonical(fs::path("/lib/modules") / release / "build");
  const fs::path partial = tree.string() + ".partial." + std::to_string(::getpid());
  fs::remove_all(partial);
  fs::create_directories(partial);  // and the trees' directory, the first time
  for (const auto& entry : fs::directory_iterator(headers)) {
    // 6.12's headers carry a vmlinux of BTF alone (for modules' BTF): stap would take it for the
    // kernel's DWARF. The debuginfo's vmlinux goes in its place, or none.
    if (entry.path().filename() == "System.map" || entry.path().filename() == "vmlinux") continue;
    fs::create_directory_symlink(entry.path(), partial / entry.path().filename());
  }
  add(partial);
  std::error_code ec;
  fs::rename(partial, tree, ec);
  if (ec) fs::remove_all(partial);  // another iotap made it first
  return tree;
}

}  // namespace

std::string guest_kernel_tree(const std::string& release, const std::string& cache_dir,
                              const std::function<std::string()>& read_kallsyms) {
  const fs::path tree = fs::path(cache_dir) / ("kernel-tree-" + release);
  if (fs::exists(tree / "System.map")) return tree;
  const std::string map = system_map_from_kallsyms(read_kallsyms());
  if (map.find(" _stext\n") == std::string::npos)
    throw UserError("the guest's /proc/kallsyms had no _stext: cannot make a System.map from it");
  return make_kernel_tree(tree, release, [&map](const fs::path& partial) {
    std::ofstream out(partial / "System.map");
    out << map;
    if (!out) throw UserError("cannot write " + (partial / "System.map").string());
  });
}

std::string debuginfo_kernel_tree(const std::string& release, const std::string& cache_dir,
                                  const KernelDebuginfo& debuginfo) {
  const fs::path tree = fs::path(cache_dir) / ("kernel-tree-" + release + "-dbg");
  // With DWARF, stap looks for the tracepoints' headers (include/trace/events) in the kernel's
  // source tree: the one vmlinux names is the package builder's, so TREE/source is next. Debian
  // keeps those headers in linux-headers-RELEASE-common, /lib/modules/RELEASE/source.
  const fs::path source = fs::path("/lib/modules") / release / "source";
  const bool has_source = fs::exists(source);
  // exists() follows the links: a tree whose package was removed since is made again.
  if (fs::exists(tree / "System.map") && fs::exists(tree / "vmlinux") &&
      (!has_source || fs::exists(tree / "source")))
    return tree;
  fs::remove_all(tree);
  return make_kernel_tree(tree, release, [&](const fs::path& partial) {
    fs::create_symlink(debuginfo.system_map, partial / "System.map");
    fs::create_symlink(debuginfo.vmlinux, partial / "vmlinux");
    if (has_source) fs::create_directory_symlink(fs::canonical(source), partial / "source");
    // elfutils looks for module debuginfo under the tree stap is given (-r TREE).
    if (!debuginfo.modules.empty())
      fs::create_directory_symlink(debuginfo.modules, partial / "kernel");
  });
}

std::string guest_compile_kernel(const std::string& release, bool needs_symbols,
                                 const std::function<std::string()>& read_kallsyms,
                                 const std::string& trees_dir) {
  if (const auto debuginfo = find_kernel_debuginfo(release))
    return debuginfo_kernel_tree(release, trees_dir, *debuginfo);
  if (needs_symbols) return guest_kernel_tree(release, trees_dir, read_kallsyms);
  return release;
}

std::string guest_kernel_trees_dir() {
  const std::string stap_dir = stap_state_dir();
  return stap_dir.empty() ? data_paths().cache : stap_dir + "/iotap-kernel";
}

}  // namespace iotap::runner
