#pragma once
// Which kernel a --target vm guest boots: the default this iotap was built for (the newest
// installed 6.1 cloud kernel, config::kGuestKernel), or one the user names with --guest-kernel,
// among the Debian kernels installed here. Naming one is the only way to change it: installing
// a newer kernel never does.
#include <string>
#include <vector>

namespace iotap::guest {

// What a kernel installed here has of what a guest needs: its image and modules boot it, its
// headers let stap compile for it, its debuginfo (-dbg) gives kernel.function() and $vars.
struct InstalledKernel {
  std::string release;   // e.g. 6.12.117+deb12-cloud-amd64
  bool image = false;    // /boot/vmlinuz-RELEASE
  bool modules = false;  // /lib/modules/RELEASE/modules.dep
  bool headers = false;  // /lib/modules/RELEASE/build/include
  bool debuginfo = false;
  // Ready: a guest boots it and stap compiles for it (debuginfo is wanted, not required).
  [[nodiscard]] bool ready() const { return image && modules && headers; }
  // The Debian packages that would make it ready and give it debuginfo, in install order.
  [[nodiscard]] std::vector<std::string> missing_packages() const;
};

// The kernels with an image in `boot_dir` (vmlinuz-RELEASE), newest first by version.
std::vector<InstalledKernel> installed_kernels(const std::string& boot_dir = "/boot",
                                               const std::string& modules_root = "/lib/modules");

// The release --guest-kernel WANTED names among `releases`: the release itself, or a prefix of
// exactly one that ends where a version component does ("6.12" names 6.12.117+deb12-cloud-amd64;
// "6.1" never names a 6.12). Throws UserError listing what is installed when none or several
// match, naming what asked as the user wrote it: --guest-kernel, or IOTAP_GUEST_KERNEL when
// `from_environment`.
std::string match_guest_kernel(const std::string& wanted, const std::vector<std::string>& releases,
                               bool from_environment = false);

// The release a --target vm run boots: NAMED (--guest-kernel), else $IOTAP_GUEST_KERNEL, resolved
// among the installed kernels that have an image; config::kGuestKernel when both are empty. A
// named kernel that is not ready is refused with the packages to install.
std::string resolve_guest_kernel(const std::string& named);

}  // namespace iotap::guest
