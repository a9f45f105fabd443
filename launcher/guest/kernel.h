#pragma once
// The guest's kernel: a Debian kernel package installed on the host, found by its release.
#include <string>
#include <vector>

namespace iotap::guest {

struct GuestKernel {
  std::string release;      // e.g. 6.1.0-56-cloud-amd64
  std::string image;        // /boot/vmlinuz-<release>
  std::string modules_dir;  // /lib/modules/<release>

  // Checks that the image and modules are there; the message says which package installs them.
  static GuestKernel find(const std::string& release);

  // Absolute paths of the .ko files to insmod, dependencies first, for modules named as
  // modprobe would name them ("dm-delay" and "dm_delay" are the same module).
  [[nodiscard]] std::vector<std::string> module_load_order(
      const std::vector<std::string>& names) const;
};

}  // namespace iotap::guest
