#pragma once
// Where the C++ runtime starts unwinding and catches, for examples/callgraph.stp's $5 and $6.
//
// A return probe hides the real return address from the unwinder (tapsets/uretprobe_unwind.stp
// explains how), so an exception thrown through a traced function would abort the program.
// The script puts the real addresses back when an unwind starts (libgcc's
// _Unwind_RaiseException, _Unwind_ForcedUnwind, _Unwind_Resume_or_Rethrow) and the
// trampoline back at the catch (libstdc++'s __cxa_begin_catch). These are found in the
// program itself (a static libgcc/libstdc++) or in the libraries it loads.
#include <string>
#include <vector>

namespace iotap::callgraph {

struct ExceptionProbePoints {
  std::string unwind;       // comma-separated probe points; empty: no unwinder found
  std::string catch_point;  // empty: no __cxa_begin_catch found
};

// `files`: the program, then its libraries (host paths, as the guest has them too).
ExceptionProbePoints exception_probe_points(const std::vector<std::string>& files);

}  // namespace iotap::callgraph
