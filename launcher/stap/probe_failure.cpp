#include "iotap/stap/probe_failure.h"

#include <array>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

namespace iotap::stap {
namespace {

// Kernel functions that scripts written for older kernels name (SystemTap's own examples among
// them), and what does their job in the kernels iotap boots.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kReplacements{{
    {"generic_make_request",
     R"(kernel.function("submit_bio") or kernel.trace("block:block_bio_queue"))"},
    {"generic_make_request_checks",
     R"(kernel.function("submit_bio_noacct") or kernel.trace("block:block_bio_queue"))"},
    {"blk_queue_bio", "kernel.function(\"blk_mq_submit_bio\")"},
    {"make_request",
     R"(module("raid0").function("raid0_make_request") or kernel.trace("block:block_bio_remap"))"},
    {"__make_request", "kernel.function(\"blk_mq_submit_bio\")"},
}};

// A probe point that did not resolve: the function it names and whether it was a module's.
struct FailedProbe {
  std::string function;
  std::string module;  // empty for the kernel's own functions
};

// The function a failed probe point names, from stap's "source:" line and the caret under it.
std::vector<FailedProbe> failed_kernel_probes(std::string_view diagnostics) {
  static const std::regex kProbePoint(
      R"re((kernel|module\("([^"]*)"\))\.function\("([^"@:*?]+)[^"]*"\))re");
  std::vector<FailedProbe> probes;
  std::istringstream lines{std::string(diagnostics)};
  bool resolving = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("while resolving probe point: identifier '") != std::string::npos) {
      resolving = true;
      continue;
    }
    if (!resolving) continue;
    resolving = false;
    const size_t source = line.find("source: ");
    if (source == std::string::npos) continue;
    std::string caret;
    std::getline(lines, caret);
    const size_t column = caret.find('^');
    std::smatch match;
    const std::string from = column != std::string::npos && column < line.size()
                                 ? line.substr(column)
                                 : line.substr(source + 8);
    if (std::regex_search(from, match, kProbePoint) && match.position(0) == 0)
      probes.push_back({match[3].str(), match[2].str()});
  }
  return probes;
}

bool mentions(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

// stap's "WARNING: cannot probe .return of N inlined functions  NAME ...": NAME among them.
bool said_inlined(std::string_view diagnostics, const std::string& function) {
  std::istringstream lines{std::string(diagnostics)};
  for (std::string line; std::getline(lines, line);) {
    if (!mentions(line, "inlined function")) continue;
    std::istringstream words(line);
    for (std::string word; words >> word;)
      if (word == function) return true;
  }
  return false;
}

std::string missing_debuginfo(const KernelDebugState& kernel) {
  return "iotap: kernel " + kernel.release +
         " has no debuginfo on this host: kernel.function() and module().function() probes, "
         "$variables and @cast to kernel types need it (so do the ioblock, vfs, scheduler and "
         "nd_syscall tapsets): " +
         kernel.install_hint + "\n";
}

std::string no_such_function(const FailedProbe& probe, const KernelDebugState& kernel,
                             bool similar_named) {
  const std::string where =
      probe.module.empty() ? "kernel " + kernel.release : "module " + probe.module;
  std::string text = "iotap: " + where + " has no function " + probe.function;
  if (const std::string_view instead = replacement_for(probe.function); !instead.empty()) {
    text += ": use ";
    text += instead;
  } else if (similar_named) {
    text += " (stap names similar ones above)";
  }
  return text + "\n";
}

}  // namespace

std::string_view replacement_for(std::string_view function) {
  for (const auto& [old_name, instead] : kReplacements)
    if (old_name == function) return instead;
  return {};
}

std::string explain_probe_failure(std::string_view diagnostics, const KernelDebugState& kernel) {
  const bool type_not_found =
      mentions(diagnostics, "not found in 'kernel'") ||
      (mentions(diagnostics, "type definition '") && mentions(diagnostics, "not found in '"));
  const bool stap_missing_debuginfo = mentions(diagnostics, "kernel/module debuginfo");
  const std::vector<FailedProbe> probes = failed_kernel_probes(diagnostics);
  if (probes.empty() && !type_not_found && !stap_missing_debuginfo) return {};
  if (!kernel.debuginfo || stap_missing_debuginfo) return missing_debuginfo(kernel);

  std::string text;
  for (const FailedProbe& probe : probes) {
    // stap's "WARNING: cannot probe .return of N inlined functions NAME" says it already.
    if (said_inlined(diagnostics, probe.function)) {
      text += "iotap: " + probe.function +
              " is inlined in this kernel (stap's warning above): probe its entry "
              "(no .return), a caller, or a tracepoint\n";
      continue;
    }
    text += no_such_function(probe, kernel, mentions(diagnostics, "similar functions: "));
  }
  return text;
}

}  // namespace iotap::stap
