#pragma once
// The guest kernel's module files, as stap's -d reads them for backtraces through a module: its
// symbols, and the unwind data that walks a stack through it. In a --target vm run stap compiles
// on this host, whose own /proc/modules and kernel are not the guest's: -d MODULE and
// --all-modules are given the guest kernel's own files instead (stap -d PATH).
#include <optional>
#include <string>
#include <vector>

#include "iotap/stack_spec/stack_plan.h"

namespace iotap::guest {

// The file of module `name` ("raid0", "md-mod" or "md_mod") of kernel `release`: the -dbg
// package's copy under `debug_root`/lib/modules/RELEASE (it has .debug_frame, the unwind data)
// where installed, else the .ko under /lib/modules/RELEASE (its symbol table only). Throws
// UserError when the kernel has no module by that name.
std::string guest_module_file(const std::string& release, const std::string& name,
                              const std::string& debug_root = "/usr/lib/debug");

// The modules the guest has loaded when a run's module starts, dependencies first, as
// guest_module_file gives them: those it loads at boot (its virtio-serial channels) and those
// `stack` needs (md, dm, brd, ...).
std::vector<std::string> guest_loaded_module_files(
    const std::string& release, const std::optional<stack_spec::StackPlan>& stack,
    const std::string& debug_root = "/usr/lib/debug");

}  // namespace iotap::guest
