#pragma once
// A module that stap translated but kbuild could not compile (pass 4) on a kernel whose API
// moved under SystemTap 4.8's runtime: kbuild prints a few hundred lines, mostly notes and make's
// own. What a user needs is the first real error and what it means.
#include <string>
#include <string_view>

namespace iotap::stap {

// For stap's stderr `diagnostics` from a failed compile: when pass 4 failed on an error in
// SystemTap's runtime (a path containing `runtime_marker`, such as "/systemtap/runtime/" or
// "/iotap-runtime/"), the one-paragraph explanation with that first error; empty otherwise (a
// script's own error, pass 2's semantic errors: stap's words are the right ones then). The
// caller leaves it out when the user's -D or embedded C could be the cause.
std::string explain_runtime_build_failure(std::string_view diagnostics);

}  // namespace iotap::stap
