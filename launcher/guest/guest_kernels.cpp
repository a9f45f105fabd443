#include "iotap/guest/guest_kernels.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <system_error>

#include "iotap/config.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/util/error.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

// Orders releases as versions: numbers by value, the rest as text ("6.12.9" < "6.12.117").
bool version_less(const std::string& a, const std::string& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) != 0 &&
        std::isdigit(static_cast<unsigned char>(b[j])) != 0) {
      const size_t a_end = a.find_first_not_of("0123456789", i);
      const size_t b_end = b.find_first_not_of("0123456789", j);
      const std::string x = a.substr(i, a_end - i);
      const std::string y = b.substr(j, b_end - j);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = a_end == std::string::npos ? a.size() : a_end;
      j = b_end == std::string::npos ? b.size() : b_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

bool names(const std::string& wanted, const std::string& release) {
  if (!release.starts_with(wanted)) return false;
  if (release.size() == wanted.size()) return true;
  // A prefix ends where a component does: "6.1" must not name "6.12...".
  const char next = release[wanted.size()];
  return next == '.' || next == '-' || next == '+' || next == '~';
}

std::string listed(const std::vector<std::string>& releases) {
  std::string text;
  for (const std::string& release : releases) text += (text.empty() ? "" : ", ") + release;
  return text.empty() ? "none" : text;
}

}  // namespace

std::vector<std::string> InstalledKernel::missing_packages() const {
  std::vector<std::string> packages;
  if (!image || !modules) packages.push_back("linux-image-" + release);
  if (!headers) packages.push_back("linux-headers-" + release);
  if (!debuginfo) packages.push_back("linux-image-" + release + "-dbg");
  return packages;
}

std::vector<InstalledKernel> installed_kernels(const std::string& boot_dir,
                                               const std::string& modules_root) {
  std::vector<InstalledKernel> kernels;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(boot_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("vmlinuz-")) continue;
    InstalledKernel kernel;
    kernel.release = name.substr(8);
    const fs::path modules = fs::path(modules_root) / kernel.release;
    kernel.image = fs::is_regular_file(entry.path(), error);
    kernel.modules = fs::is_regular_file(modules / "modules.dep", error);
    kernel.headers = fs::is_directory(modules / "build" / "include", error);
    kernel.debuginfo = runner::find_kernel_debuginfo(kernel.release).has_value();
    kernels.push_back(kernel);
  }
  std::ranges::sort(kernels, [](const InstalledKernel& a, const InstalledKernel& b) {
    return version_less(b.release, a.release);
  });
  return kernels;
}

std::string match_guest_kernel(const std::string& wanted, const std::vector<std::string>& releases,
                               bool from_environment) {
  const std::string asked =
      from_environment ? "IOTAP_GUEST_KERNEL=" + wanted : "--guest-kernel " + wanted;
  if (std::ranges::find(releases, wanted) != releases.end()) return wanted;
  std::vector<std::string> matches;
  std::ranges::copy_if(releases, std::back_inserter(matches),
                       [&](const std::string& release) { return names(wanted, release); });
  if (matches.size() == 1) return matches.front();
  if (matches.empty())
    throw UserError(asked + ": no installed kernel is " + wanted +
                    " (installed: " + listed(releases) +
                    "); install one (linux-image-6.12-cloud-amd64 and linux-headers-6.12-cloud-"
                    "amd64 for 6.12; ./setup.sh installs both series)");
  throw UserError(asked + " names " + std::to_string(matches.size()) + " kernels (" +
                  listed(matches) + "): give more of the release");
}

std::string resolve_guest_kernel(const std::string& named) {
  const char* env = std::getenv("IOTAP_GUEST_KERNEL");
  const std::string wanted = !named.empty() ? named : env != nullptr ? env : "";
  if (wanted.empty()) return config::kGuestKernel;
  const std::vector<InstalledKernel> kernels = installed_kernels();
  std::vector<std::string> releases;
  releases.reserve(kernels.size());
  for (const InstalledKernel& kernel : kernels) releases.push_back(kernel.release);
  std::string release = match_guest_kernel(wanted, releases, named.empty());
  const auto kernel = std::ranges::find(kernels, release, &InstalledKernel::release);
  if (!kernel->ready()) {
    std::vector<std::string> packages = kernel->missing_packages();
    std::erase_if(packages, [](const std::string& package) { return package.ends_with("-dbg"); });
    throw UserError("guest kernel " + release + " is not ready for --target vm: install " +
                    listed(packages) + " (apt-get install; " + kDoctorHint + ")");
  }
  return release;
}

}  // namespace iotap::guest
