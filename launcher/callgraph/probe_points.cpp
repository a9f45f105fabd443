#include "iotap/callgraph/probe_points.h"

#include <algorithm>

#include "iotap/util/error.h"
#include "module_functions.h"

namespace iotap::callgraph {
namespace {

// Quotes, backslashes and control characters would end or bend the string literal the
// pattern is pasted into; no function or module name holds one.
std::string checked(const std::string& text, const std::string& option) {
  const bool bad = std::any_of(text.begin(), text.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
  if (bad || text.empty())
    throw UserError(option + " '" + text +
                    "' is not a function name or glob (no quotes, backslashes or control "
                    "characters; e.g. 'read_*')");
  return text;
}

}  // namespace

std::string user_probe_point(const std::string& program, const std::string& glob) {
  const std::string with_debug_info = glob.find('@') == std::string::npos ? glob + "@*" : glob;
  return "process(\"" + checked(program, "the program path") + "\").function(\"" + with_debug_info +
         "\")";
}

KernelProbePoints kernel_probe_points(const std::string& spec, const std::string& kernel_release) {
  checked(spec, "--kernel");
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    const std::string point = "kprobe.function(\"" + spec + "\")";
    return {point, point + ".return"};
  }
  const std::string module = spec.substr(0, colon);
  const std::string glob = spec.substr(colon + 1);
  if (module.empty() || glob.empty())
    throw UserError("--kernel '" + spec +
                    "': give MODULE:GLOB (e.g. 'raid0:raid0_*') or a vmlinux GLOB (e.g. "
                    "'submit_bio*')");
  KernelProbePoints points;
  for (const auto& function : module_functions(kernel_release, module, glob)) {
    std::string point = "kprobe.module(\"" + module + "\").function(\"";
    point.append(function).append("\")");
    if (!points.entry.empty()) {
      points.entry += ", ";
      points.exit += ", ";
    }
    points.entry += point;
    points.exit.append(point).append(".return");
  }
  return points;
}

std::vector<std::string> script_arguments(const ProbeSelection& selection) {
  std::vector<std::string> args{
      user_probe_point(selection.program, checked(selection.functions, "--functions"))};
  const std::string trigger =
      selection.trigger.empty()
          ? ""
          : user_probe_point(selection.program, checked(selection.trigger, "--trigger"));
  const auto& exceptions = selection.exceptions;
  if (selection.kernel.empty() && exceptions.unwind.empty()) {
    if (!trigger.empty()) args.push_back(trigger);
    return args;
  }
  KernelProbePoints kernel;
  if (!selection.kernel.empty())
    kernel = kernel_probe_points(selection.kernel, selection.kernel_release);
  args.insert(args.end(), {trigger, kernel.entry, kernel.exit});
  if (!exceptions.unwind.empty())
    args.insert(args.end(), {exceptions.unwind, exceptions.catch_point});
  return args;
}

}  // namespace iotap::callgraph
