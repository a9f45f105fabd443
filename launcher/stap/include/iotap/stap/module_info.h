#pragma once
// What a kernel module says of itself in its .modinfo section (what `modinfo` prints): its name
// and the kernel it was built for, read before staprun is asked to load it.
#include <string>
#include <string_view>

namespace iotap::stap {

struct ModuleInfo {
  std::string name;      // name=
  std::string vermagic;  // vermagic=: "6.1.0-56-cloud-amd64 SMP preempt mod_unload modversions "
  // The kernel release the module was built for: vermagic's first word.
  [[nodiscard]] std::string release() const;
};

// The section's bytes: NUL-separated KEY=VALUE strings (padding NULs between them).
ModuleInfo parse_modinfo(std::string_view section);

// Reads `path`'s .modinfo. Throws UserError when it is not a kernel module: not ELF, or no
// .modinfo with a name and a vermagic.
ModuleInfo read_module_info(const std::string& path);

}  // namespace iotap::stap
