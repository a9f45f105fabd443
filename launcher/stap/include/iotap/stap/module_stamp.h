#pragma once
// A module compiled on one machine (--save-module) and run on another (--module), as SystemTap
// itself does it: `stap -p4 -r RELEASE -m NAME` where the compiler is, `staprun NAME.ko` where
// the kernel is. The machine that runs it has no stap and no kernel tree, so iotap's module cache
// key (module_cache.h) cannot be computed there; the module's own name carries what it was
// compiled from instead, in two parts that the running side computes again from its own copy of
// iotap and of the traced program:
//   iotap_<script part>_<program part>
// script part: the script as prepared (markers substituted), its name and arguments, the user's
// stap options and iotap's tapsets; program part: the bytes of every program the script probes
// by path (a different build moves its USDT probes). The kernel is the module's own vermagic.
#include <optional>
#include <string>
#include <string_view>

#include "iotap/stap/compiler.h"
#include "iotap/stap/module_info.h"

namespace iotap::stap {

struct ModuleStamp {
  std::string script;    // 16 hex digits
  std::string programs;  // 8 hex digits
  bool operator==(const ModuleStamp&) const = default;
};

ModuleStamp module_stamp(const CompileRequest& request);

// "iotap_<script>_<programs>": 31 characters, within a module name's 55.
std::string stamped_module_name(const ModuleStamp& stamp);

// The stamp in a module name made by stamped_module_name; none for any other name.
std::optional<ModuleStamp> stamp_in_module_name(std::string_view name);

// Empty when the module at `path` (`info`, its .modinfo) is one a --save-module of this same run
// made (`here`, this run's stamp); else why not, and what to do, in one line.
std::string saved_module_problem(const std::string& path, const ModuleInfo& info,
                                 const ModuleStamp& here);

}  // namespace iotap::stap
