#include "iotap/session/request_source.h"

#include <algorithm>
#include <filesystem>

#include "iotap/usdt/stapsdt_notes.h"
#include "iotap/util/error.h"

namespace iotap::verbs {

bool has_known_usdt_requests(const std::string& program) {
  if (program.empty()) return false;
  const auto probes = usdt::read_probes(program);
  if (!probes) return false;
  const auto has = [&](std::string_view name) {
    return std::any_of(probes->probes.begin(), probes->probes.end(), [&](const usdt::Probe& p) {
      return p.provider == "block_hasher" && p.name == name;
    });
  };
  return has("read_start") && has("read_done");
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
            "--requests syscall: following " + name + "'s I/O system calls"};
  const bool known = has_known_usdt_requests(program);
  if (asked == "usdt" && !known)
    throw UserError(
        "--requests usdt: " + (program.empty() ? name : program) +
        " has no USDT probes iotap knows (block_hasher:read_start and read_done; "
        "'iotap probes PROGRAM' lists those it has): leave --requests out to follow its "
        "system "
        "calls");
  if (known)
    return {engine::RequestSource::usdt,
            "following " + name + "'s reads through its USDT probes (read_start, read_done)"};
  return {engine::RequestSource::syscall,
          "following " + name + "'s I/O system calls (it has no USDT probes iotap knows)"};
}

}  // namespace iotap::verbs
