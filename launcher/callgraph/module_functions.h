#pragma once
// A kernel module's functions, read from its .ko on this host. stap 4.8 does not expand a glob
// in kprobe.module("M").function("GLOB"): it registers the glob itself as a symbol name, which
// never matches. So the verb expands it here, from the module file the target kernel loads.
#include <string>
#include <vector>

namespace iotap::callgraph {

// The text symbols of `module` (e.g. "raid0", "dm_mod") for `kernel_release` that match
// `glob` (fnmatch), sorted; compiler-made copies ("f.cold", "f.isra.0") are left out. Throws
// UserError when the module is not installed for that kernel or nothing matches.
std::vector<std::string> module_functions(const std::string& kernel_release,
                                          const std::string& module, const std::string& glob);

}  // namespace iotap::callgraph
