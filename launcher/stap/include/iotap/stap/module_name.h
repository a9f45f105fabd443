#pragma once
// A name of its own for each run's module on a machine others may trace too (--target local,
// ssh://). The kernel refuses a second module of a name already loaded, so two runs of one
// compiled module (iotap's cache hands every run of a script the same file) collided. The name
// lives in the module's .gnu.linkonce.this_module section (struct module's name field), which is
// what the kernel registers and what SystemTap's runtime names its channels after; staprun takes
// the name from the file's. `staprun -R` renames too, but only within the compiled name's length
// and to NAME_PID, which a 5-letter "iotap" cannot hold: iotap names the copy itself.
#include <string>
#include <string_view>
#include <vector>

namespace iotap::stap {

// "iotap_" and 12 random hex digits: distinct across runs and across the machines tracing one
// host, and recognisably iotap's in lsmod.
std::string run_module_name();

// A copy of `module` in `dir` named `name` (`dir`/`name`.ko), the name in its this_module section
// replaced. Throws UserError when the file has no such section holding its own name, or when the
// name does not fit (the kernel's MODULE_NAME_LEN, 56 on 64-bit machines, with its NUL).
std::string copy_module_named(const std::string& module, const std::string& name,
                              const std::string& dir);

// Whether `name` is one run_module_name() makes.
bool is_run_module_name(std::string_view name);

// A run's module loaded in a kernel, as /proc/modules lists it.
struct LoadedRunModule {
  std::string name;
  unsigned long users = 0;  // stapio holds one while a run is attached to it
};

// The runs' modules in `proc_modules` (its text: "NAME SIZE USERS DEPS STATE ADDRESS" a line),
// in its order. One with no users is left behind: its run's stapio is gone (killed before it
// could unload it) and the module goes on, its probes firing, until it is removed.
std::vector<LoadedRunModule> loaded_run_modules(std::string_view proc_modules);

// `module`'s copy beside it under a run_module_name(): what a run on a machine that others may
// trace too loads (--target local, ssh://).
std::string module_for_this_run(const std::string& module);

}  // namespace iotap::stap
