#include "iotap/session/request_source.h"

#include <filesystem>

#include "iotap/provider/catalog.h"
#include "iotap/provider/probe_check.h"
#include "iotap/provider/script_generator.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"

namespace iotap::session {

namespace {

std::string base_name(const std::string& program) {
  return program.empty() ? "the program" : std::filesystem::path(program).filename().string();
}

std::string level_list(const provider::Provider& provider) {
  std::string names;
  for (const auto& level : provider.levels) names += (names.empty() ? "" : ", ") + level.name;
  return names;
}

std::string provider_names() {
  std::string names;
  for (const auto& provider : provider::bundled_providers(data_paths().providers))
    names += (names.empty() ? "" : ", ") + provider.name;
  return names;
}

// block_hasher and io_replayer keep the sentences their users know.
std::string why_usdt(const provider::Provider& provider, const std::string& program,
                     const std::string& probed) {
  const std::string name = base_name(program);
  if (provider.name == "block_hasher")
    return "following " + name + "'s reads through its USDT probes (read_start, read_done)";
  if (provider.name == "io_replayer")
    return "following " + name +
           "'s replayed requests through its USDT probes (request_start, request_done)";
  if (program.empty())  // attached: no -c or -x (session/target_options.h)
    return "attached to every process running " + probed +
           " (those started from now on too), following their " + provider.levels.front().plural +
           " through its USDT probes (provider " + provider.name + ": " + level_list(provider) +
           ") until --timeout or Ctrl-C";
  const std::string whose = probed == program ? "its" : probed + "'s";
  return "following " + name + "'s " + provider.levels.front().plural + " through " + whose +
         " USDT probes (provider " + provider.name + ": " + level_list(provider) + ")";
}

ChosenSource usdt_source(provider::Provider provider, const std::string& program,
                         const std::string& probed) {
  ChosenSource chosen{engine::RequestSource::usdt, why_usdt(provider, program, probed),
                      provider.script, provider.name};
  chosen.probed_program = probed;
  if (provider.script.empty())
    chosen.generated_script = provider::generated_script(provider, probed);
  chosen.declaration = std::move(provider);
  return chosen;
}

// --requests usdt:WHAT: that provider, held to the binary its probes are on.
ChosenSource named_provider(const std::string& program, const std::string& what) {
  provider::Provider provider = provider::find_provider(what, data_paths().providers);
  const std::string asked = "--requests usdt:" + what + ": ";
  const std::string probed = provider::probed_program(provider, program);
  if (probed.empty()) {
    std::string where = provider.programs.empty()
                            ? ""
                            : " and " + provider.programs.front() + " (its program) does not exist";
    throw UserError(asked + (program.empty() ? "the program" : program) + " has no " +
                    provider.name + " probes" + where +
                    ": trace a program that has them (-c or -x), or install it");
  }
  if (const std::string problem = provider::probe_mismatch(provider, probed); !problem.empty())
    throw UserError(asked + problem);
  return usdt_source(std::move(provider), program, probed);
}

}  // namespace

ChosenSource choose_request_source(const std::string& program, std::string_view asked) {
  if (asked.starts_with("usdt:") && asked.size() > 5)
    return named_provider(program, std::string(asked.substr(5)));
  if (!asked.empty() && asked != "usdt" && asked != "syscall")
    throw UserError(
        "--requests must be 'usdt' (the program's USDT probes), 'usdt:PROVIDER' (a provider's "
        "name or its file's path) or 'syscall' (its I/O system calls), not '" +
        std::string(asked) + "'");
  const std::string name = base_name(program);
  if (asked == "syscall")
    return {engine::RequestSource::syscall,
            "--requests syscall: following " + name + "'s I/O system calls", "syscall_events.stp"};
  auto provider =
      provider::provider_of(program, provider::bundled_providers(data_paths().providers));
  if (provider) return usdt_source(*std::move(provider), program, program);
  if (asked == "usdt")
    throw UserError("--requests usdt: " + (program.empty() ? name : program) +
                    " has no USDT probes iotap knows (it has providers for " + provider_names() +
                    "; 'iotap probes PROGRAM' lists the probes it has, 'iotap providers' what "
                    "each provider needs): name one with --requests usdt:NAME (its probes may be "
                    "on another program: usdt:postgresql probes the server psql talks to) or a "
                    "file of your own with usdt:FILE, or leave --requests out to follow its "
                    "system calls");
  return {engine::RequestSource::syscall,
          "following " + name + "'s I/O system calls (it has no USDT probes iotap knows)",
          "syscall_events.stp"};
}

std::vector<provider::LevelName> request_levels(const ChosenSource& source) {
  if (!source.declaration || !source.script.empty()) return {};
  return provider::level_names(*source.declaration);
}

std::string known_usdt_provider(const std::string& program) {
  const auto provider =
      provider::provider_of(program, provider::bundled_providers(data_paths().providers));
  return provider ? provider->name : "";
}

}  // namespace iotap::session
