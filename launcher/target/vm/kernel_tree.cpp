#include "iotap/target/kernel_tree.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iotap/util/error.h"

namespace iotap::vm {

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

std::string guest_kernel_tree(const std::string& release, const std::string& cache_dir,
                              const std::function<std::string()>& read_kallsyms) {
  const fs::path tree = fs::path(cache_dir) / ("kernel-tree-" + release);
  if (fs::exists(tree / "System.map")) return tree;
  const fs::path headers = fs::canonical(fs::path("/lib/modules") / release / "build");

  const std::string map = system_map_from_kallsyms(read_kallsyms());
  if (map.find(" _stext\n") == std::string::npos)
    throw UserError("the guest's /proc/kallsyms had no _stext: cannot make a System.map from it");
  const fs::path partial =
      fs::path(cache_dir) / ("kernel-tree-" + release + ".partial." + std::to_string(::getpid()));
  fs::remove_all(partial);
  fs::create_directories(partial);
  for (const auto& entry : fs::directory_iterator(headers)) {
    if (entry.path().filename() == "System.map") continue;
    fs::create_directory_symlink(entry.path(), partial / entry.path().filename());
  }
  {
    std::ofstream out(partial / "System.map");
    out << map;
    if (!out) throw UserError("cannot write " + (partial / "System.map").string());
  }
  std::error_code ec;
  fs::rename(partial, tree, ec);
  if (ec) fs::remove_all(partial);  // another iotap made it first
  return tree;
}

}  // namespace iotap::vm
