#include "kernel.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "iotap/util/error.h"
#include "iotap/util/files.h"

namespace iotap::guest {
namespace {

std::string module_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  name = name.substr(0, name.find(".ko"));
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

}  // namespace

GuestKernel GuestKernel::find(const std::string& release) {
  if (release.empty()) {
    throw UserError(
        std::string("this iotap was configured without a guest kernel, so --target vm cannot run: "
                    "install linux-image-cloud-amd64 and linux-headers-cloud-amd64, then rebuild "
                    "(./setup.sh does both; ") +
        kDoctorHint + ")");
  }
  GuestKernel kernel{release, "/boot/vmlinuz-" + release, "/lib/modules/" + release};
  const std::string package = "linux-image-" + release;
  if (::access(kernel.image.c_str(), R_OK) != 0) {
    throw UserError("guest kernel " + kernel.image + " is missing or unreadable (install " +
                    package + "; ./setup.sh does; " + kDoctorHint + ")");
  }
  if (::access((kernel.modules_dir + "/modules.dep").c_str(), R_OK) != 0) {
    throw UserError("guest kernel modules are missing from " + kernel.modules_dir + " (reinstall " +
                    package + "; " + kDoctorHint + ")");
  }
  return kernel;
}

std::vector<std::string> GuestKernel::module_load_order(
    const std::vector<std::string>& names) const {
  // modules.dep lines read "kernel/drivers/md/raid0.ko: kernel/drivers/md/md-mod.ko".
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> by_name;
  std::istringstream dep(read_file(modules_dir + "/modules.dep"));
  std::string line;
  while (std::getline(dep, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string path = line.substr(0, colon);
    std::istringstream rest(line.substr(colon + 1));
    std::vector<std::string> deps;
    std::string item;
    while (rest >> item) deps.push_back(item);
    by_name[module_name(path)] = {path, deps};
  }
  // A module one kernel builds in (6.12's ecb, for dm-crypt) needs no loading there.
  std::set<std::string> built_in;
  if (::access((modules_dir + "/modules.builtin").c_str(), R_OK) == 0) {
    std::istringstream builtin(read_file(modules_dir + "/modules.builtin"));
    while (std::getline(builtin, line)) built_in.insert(module_name(line));
  }
  std::vector<std::string> order;
  std::set<std::string> done;
  std::function<void(const std::string&)> visit = [&](const std::string& name) {
    const auto it = by_name.find(name);
    if (it == by_name.end() && built_in.contains(name)) return;
    if (it == by_name.end()) {
      throw UserError("kernel " + release + " has no module '" + name + "' in " + modules_dir +
                      "/modules.dep");
    }
    if (!done.insert(name).second) return;
    for (const auto& dep_path : it->second.second) visit(module_name(dep_path));
    order.push_back(modules_dir + "/" + it->second.first);
  };
  for (const auto& name : names) {
    std::string normalized = name;
    std::replace(normalized.begin(), normalized.end(), '_', '-');
    visit(normalized);
  }
  return order;
}

}  // namespace iotap::guest
