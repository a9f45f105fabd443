#include "iotap/callgraph/exception_probes.h"

#include <filesystem>
#include <set>

#include "elf_functions.h"
#include "iotap/callgraph/probe_points.h"

namespace iotap::callgraph {
namespace {

// The functions `file` defines (in .symtab, or in .dynsym when stripped) out of `wanted`.
std::set<std::string> defined_functions(const std::string& file,
                                        const std::set<std::string>& wanted) {
  std::set<std::string> found;
  for (const auto& name : defined_function_names(file, SymbolTables::kSymtabAndDynsym)
                              .value_or(std::set<std::string>{})) {
    if (wanted.contains(name)) found.insert(name);
  }
  return found;
}

std::string probe_point(const std::string& file, const std::string& function) {
  // stap names a library by its real path; the guest has the same symlinks as the host.
  std::error_code ec;
  const auto real = std::filesystem::weakly_canonical(file, ec);
  return R"(process(")" + (ec ? file : real.string()) + R"(").function(")" + function + R"("))";
}

}  // namespace

ExceptionProbePoints exception_probe_points(const std::vector<std::string>& files) {
  // Every way an unwind starts: throw and std::rethrow_exception, pthread_exit and
  // cancellation, and `throw;` (which starts a forced unwind's second phase itself).
  const std::vector<std::string> unwinders{"_Unwind_RaiseException", "_Unwind_ForcedUnwind",
                                           "_Unwind_Resume_or_Rethrow"};
  const std::string catcher = "__cxa_begin_catch";
  std::set<std::string> wanted(unwinders.begin(), unwinders.end());
  wanted.insert(catcher);

  ExceptionProbePoints points;
  for (const auto& file : files) {
    // The path lands in a stap string literal; no library path of a real system holds these.
    if (file.find_first_of("\"\\") != std::string::npos) continue;
    const auto found = defined_functions(file, wanted);
    for (const auto& function : unwinders) {
      if (!found.contains(function) || !wanted.contains(function)) continue;
      if (!points.unwind.empty()) points.unwind += ", ";
      points.unwind += probe_point(file, function);
      wanted.erase(function);
    }
    if (found.contains(catcher) && points.catch_point.empty())
      points.catch_point = probe_point(file, catcher);
  }
  return points;
}

}  // namespace iotap::callgraph
