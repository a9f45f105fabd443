#include "iotap/provider/probe_check.h"

#include <algorithm>

#include "iotap/usdt/stapsdt_notes.h"

namespace iotap::provider {

namespace {

std::string arguments(int count) {
  return std::to_string(count) + (count == 1 ? " argument" : " arguments");
}

std::string check_one(const Provider& provider, const ProbeUse& use, const usdt::ProbeList& probes,
                      const std::string& binary) {
  const auto found = std::find_if(probes.probes.begin(), probes.probes.end(), [&](const auto& p) {
    return p.provider == provider.name && p.name == use.name;
  });
  const std::string declared = provider.path + ":" + std::to_string(use.line);
  const std::string probe = provider.name + ":" + use.name;
  if (found == probes.probes.end())
    return binary + " has no probe " + probe + " (" + declared + " expects it, with " +
           arguments(use.args) + "; 'iotap probes " + binary + "' lists those it has)";
  const int count = static_cast<int>(found->args.size());
  if (count != use.args)
    return binary + " has " + probe + " with " + arguments(count) + "; " + declared + " expects " +
           std::to_string(use.args) +
           " (a provider file is written for one version of its program)";
  return "";
}

}  // namespace

std::string probe_mismatch(const Provider& provider, const usdt::ProbeList& probes,
                           const std::string& binary) {
  for (const auto& level : provider.levels) {
    for (const ProbeUse* use : {&level.begin, &level.end}) {
      if (auto problem = check_one(provider, *use, probes, binary); !problem.empty())
        return problem;
    }
  }
  return "";
}

std::string probe_mismatch(const Provider& provider, const std::string& binary) {
  const auto probes = usdt::read_probes(binary);
  if (!probes) return probes.error();  // it starts with the path
  return probe_mismatch(provider, *probes, binary);
}

}  // namespace iotap::provider
