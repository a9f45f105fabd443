#include "iotap/stap/build_failure.h"

#include <algorithm>
#include <array>

#include "iotap/util/lines.h"

namespace iotap::stap {
namespace {

// Where the runtime is: SystemTap's own, or iotap's adapted copies of it.
constexpr std::array<std::string_view, 2> kRuntimePaths{"/systemtap/runtime/", "/iotap-runtime/"};

bool in_runtime(std::string_view line) {
  return std::ranges::any_of(kRuntimePaths, [&](std::string_view path) {
    return line.find(path) != std::string_view::npos;
  });
}

}  // namespace

std::string explain_runtime_build_failure(std::string_view diagnostics) {
  if (diagnostics.find("Pass 4: compilation failed") == std::string_view::npos) return {};
  std::string first_error;
  for_each_line(diagnostics, [&](std::string_view line) {
    if (first_error.empty() && line.find(": error: ") != std::string_view::npos)
      first_error = std::string(line);
  });
  if (first_error.empty() || !in_runtime(first_error)) return {};
  return "this kernel is newer than the runtime adaptation covers: SystemTap 4.8's runtime, as "
         "iotap adapts it (Linux 6.1 and 6.12; docs/kernels.md says how to add a kernel), does "
         "not build against its headers. stap's first error:\n  " +
         first_error + "\n";
}

}  // namespace iotap::stap
