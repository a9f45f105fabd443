#pragma once
// Which user-level requests `attribute`, `diagnose` and `record` follow: a provider's (a
// provider file's USDT probes: providers/*.provider, or a user's own) when the traced program
// has all of its probes, else the program's I/O system calls, which any program makes.
// --requests usdt[:NAME|:FILE]|syscall overrides the choice.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/engine.h"
#include "iotap/provider/provider.h"

namespace iotap::session {

struct ChosenSource {
  engine::RequestSource source = engine::RequestSource::syscall;
  std::string why;  // for the status line: "dd has no USDT probes iotap knows"
  // The examples/ script that prints them: "events.stp", "replay_events.stp",
  // "syscall_events.stp"; empty when the provider's script is generated (generated_script).
  std::string script;
  std::string provider{};  // whose USDT probes: "block_hasher", "postgresql"; empty: syscall
  std::optional<provider::Provider> declaration{};  // the provider file, when usdt
  std::string probed_program{};    // the binary its probes are on (not always the traced one)
  std::string generated_script{};  // the script's text, for a provider without a script
};

// `program`: the traced program's host path ("" when unknown); `asked`: --requests's value, ""
// when not given. Throws UserError for a value that is none of the forms, for usdt asked of a
// program without a provider's probes, and for a provider whose probes are missing from its
// program or have other argument counts (naming the probe, the expected and the found count).
ChosenSource choose_request_source(const std::string& program, std::string_view asked);

// The levels the engine is told (engine::Options::levels, outermost first) for the PB/PT/PE
// lines of a generated provider script; empty for the system calls and for a provider whose own
// script prints other events (block_hasher's RS/RD, io_replayer's US/UD).
std::vector<provider::LevelName> request_levels(const ChosenSource& source);

// Whose USDT requests `program` has, among the providers iotap ships: "block_hasher",
// "io_replayer", "postgresql", or "" for none.
std::string known_usdt_provider(const std::string& program);

}  // namespace iotap::session
