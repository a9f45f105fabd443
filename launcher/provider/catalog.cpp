#include "iotap/provider/catalog.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "iotap/provider/probe_check.h"
#include "iotap/usdt/stapsdt_notes.h"
#include "iotap/util/error.h"

namespace iotap::provider {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".provider";

std::vector<std::string> provider_paths(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string path = entry.path().string();
    if (path.ends_with(kSuffix) && entry.is_regular_file(error)) paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

std::vector<Provider> bundled_providers(const std::string& dir) {
  std::vector<Provider> providers;
  for (const auto& path : provider_paths(dir)) providers.push_back(read_provider(path));
  return providers;
}

Provider find_provider(const std::string& what, const std::string& dir) {
  if (what.find('/') != std::string::npos || what.ends_with(kSuffix)) return read_provider(what);
  const std::string path = dir + "/" + what + std::string(kSuffix);
  std::error_code error;
  if (fs::is_regular_file(path, error)) return read_provider(path);
  std::string names;
  for (const auto& known : provider_paths(dir))
    names += (names.empty() ? "" : ", ") + fs::path(known).stem().string();
  throw UserError("--requests usdt:" + what + ": no provider of that name (iotap has " +
                  (names.empty() ? std::string("none") : names) +
                  "; 'iotap providers' lists them); a provider file of your own is named by "
                  "its path: usdt:./NAME.provider");
}

std::optional<Provider> provider_of(const std::string& binary,
                                    const std::vector<Provider>& providers) {
  if (binary.empty()) return std::nullopt;
  const auto probes = usdt::read_probes(binary);
  if (!probes) return std::nullopt;
  for (const auto& provider : providers)
    if (probe_mismatch(provider, *probes, binary).empty()) return provider;
  return std::nullopt;
}

std::string probed_program(const Provider& provider, const std::string& traced) {
  // A traced program with any probe of the provider is the one probed (and held to the file):
  // a server of another version is refused, not passed over for the declared program.
  if (!traced.empty()) {
    const auto probes = usdt::read_probes(traced);
    if (probes && std::any_of(probes->probes.begin(), probes->probes.end(),
                              [&](const auto& probe) { return probe.provider == provider.name; }))
      return traced;
  }
  std::error_code error;
  for (const auto& program : provider.programs)
    if (fs::exists(program, error)) return program;
  return "";
}

}  // namespace iotap::provider
