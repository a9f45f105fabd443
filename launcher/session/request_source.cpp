#include "iotap/session/request_source.h"

#include <algorithm>
#include <filesystem>

#include "iotap/usdt/stapsdt_notes.h"
#include "iotap/util/error.h"

namespace iotap::session {

std::string known_usdt_provider(const std::string& program) {
  if (program.empty()) return "";
  const auto probes = usdt::read_probes(program);
  if (!probes) return "";
  const auto has = [&](std::string_view provider, std::string_view name) {
    return std::any_of(probes->probes.begin(), probes->probes.end(), [&](const usdt::Probe& p) {
      return p.provider == provider && p.name == name;
    });
  };
  if (has("block_hasher", "read_start") && has("block_hasher", "read_done")) return "block_hasher";
  if (has("io_replayer", "request_start") && has("io_replayer", "request_done"))
    return "io_replayer";
  return "";
}

ChosenSource choose_request_source(const std::string& program, std::string_view asked) {
  if (!asked.empty() && asked != "usdt" && asked != "syscall")
    throw UserError(
        "--requests must be 'usdt' (the program's USDT probes) or 'syscall' (its I/O "
        "system calls), not '" +
        std::string(asked) + "'");
  const std::string name =
      program.empty() ? "the program" : std::filesystem::path(program).filename().string();
  if (asked == "syscall")
    return {engine::RequestSource::syscall,
            "--requests syscall: following " + name + "'s I/O system calls", "syscall_events.stp"};
  const std::string provider = known_usdt_provider(program);
  const bool known = !provider.empty();
  if (asked == "usdt" && !known)
    throw UserError(
        "--requests usdt: " + (program.empty() ? name : program) +
        " has no USDT probes iotap knows (block_hasher:read_start and read_done; "
        "'iotap probes PROGRAM' lists those it has): leave --requests out to follow its "
        "system "
        "calls");
  if (provider == "io_replayer")
    return {engine::RequestSource::usdt,
            "following " + name +
                "'s replayed requests through its USDT probes (request_start, request_done)",
            "replay_events.stp", provider};
  if (known)
    return {engine::RequestSource::usdt,
            "following " + name + "'s reads through its USDT probes (read_start, read_done)",
            "events.stp", provider};
  return {engine::RequestSource::syscall,
          "following " + name + "'s I/O system calls (it has no USDT probes iotap knows)",
          "syscall_events.stp"};
}

}  // namespace iotap::session
