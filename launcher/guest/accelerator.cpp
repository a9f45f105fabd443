#include "accelerator.h"

#include <fcntl.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"

namespace iotap::guest {
namespace {

bool names_hardware_virtualization(std::string_view flags) {
  std::istringstream words{std::string(flags)};
  std::string word;
  while (words >> word)
    if (word == "vmx" || word == "svm") return true;
  return false;
}

bool dev_kvm_opens() {
  const int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace

Accelerator choose_accelerator(std::string_view cpuinfo, bool kvm_device_opens) {
  if (!kvm_device_opens) return Accelerator::kTcg;
  bool hardware = false;
  for_each_line(cpuinfo, [&hardware](std::string_view line) {
    // x86 calls the line "flags"; the value follows the colon.
    const size_t colon = line.find(':');
    if (line.starts_with("flags") && colon != std::string_view::npos)
      hardware = hardware || names_hardware_virtualization(line.substr(colon + 1));
  });
  return hardware ? Accelerator::kKvm : Accelerator::kTcg;
}

Accelerator host_accelerator() {
  if (!dev_kvm_opens()) return Accelerator::kTcg;  // /proc/cpuinfo need not be read
  try {
    return choose_accelerator(read_file("/proc/cpuinfo"), true);
  } catch (const UserError&) {
    return Accelerator::kTcg;  // no flags to go by
  }
}

}  // namespace iotap::guest
