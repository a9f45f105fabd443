#pragma once
// The verb's options as examples/callgraph.stp's arguments: $1 the program's functions,
// $2 the trigger ("" for none), $3 and $4 the kernel functions' entry and return probe points,
// $5 and $6 where the C++ runtime starts unwinding and catches (exception_probes.h).
// Everything lands inside a stap string literal, so anything that could end one is refused.
#include <string>
#include <vector>

#include "iotap/callgraph/exception_probes.h"

namespace iotap::callgraph {

struct ProbeSelection {
  std::string program;              // absolute path of the traced binary
  std::string functions = "*";      // --functions GLOB
  std::string trigger;              // --trigger FUNC; empty: everything
  std::string kernel;               // --kernel GLOB or MODULE:GLOB; empty: no kernel functions
  std::string kernel_release;       // the target's, to find MODULE's functions
  ExceptionProbePoints exceptions;  // none: the program cannot throw through a traced function
};

struct KernelProbePoints {
  std::string entry;  // one probe point, or a comma-separated list of them
  std::string exit;   // the same, each with .return
};

// `process("PROG").function("GLOB@*")`: the functions with debug info only. That leaves out
// what only the symbol table names: crt's _start, _init, frame_dummy, and the parts GCC splits
// off a function ("parse.cold"), which are entered by a jump, not a call, so a return probe
// there would overwrite a word of the function's frame that is not a return address. A GLOB
// that names a file itself ("read_*@reader.cpp") is taken as it is.
std::string user_probe_point(const std::string& program, const std::string& glob);

// "GLOB" -> `kprobe.function("GLOB")` (stap expands it from the kernel's symbol table);
// "MODULE:GLOB" -> `kprobe.module("MODULE").function("F")` for each F of the module's .ko that
// matches (stap 4.8 does not expand globs in module kprobes).
KernelProbePoints kernel_probe_points(const std::string& spec, const std::string& kernel_release);

// The script's arguments, as few as the selection needs. Throws UserError on a glob that
// cannot be a function name.
std::vector<std::string> script_arguments(const ProbeSelection& selection);

}  // namespace iotap::callgraph
