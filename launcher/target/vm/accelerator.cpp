#include "vm/accelerator.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace iotap::vm {
namespace {

bool names_hardware_virtualization(std::string_view flags_line) {
  std::istringstream words{std::string(flags_line)};
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
  while (!cpuinfo.empty()) {
    const size_t end = cpuinfo.find('\n');
    const std::string_view line = cpuinfo.substr(0, end);
    // x86 calls the line "flags"; the value follows the colon.
    if (line.starts_with("flags")) {
      const size_t colon = line.find(':');
      if (colon != std::string_view::npos && names_hardware_virtualization(line.substr(colon + 1)))
        return Accelerator::kKvm;
    }
    if (end == std::string_view::npos) break;
    cpuinfo.remove_prefix(end + 1);
  }
  return Accelerator::kTcg;
}

Accelerator host_accelerator() {
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream text;
  text << in.rdbuf();
  return choose_accelerator(text.str(), dev_kvm_opens());
}

}  // namespace iotap::vm
