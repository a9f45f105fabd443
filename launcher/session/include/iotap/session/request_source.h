#pragma once
// Which user-level requests `attribute` and `diagnose` follow: the program's USDT probes that
// iotap knows (block_hasher's read_start and read_done, io_replayer's request_start and
// request_done) when it has them, else its I/O system calls, which any program makes.
// --requests usdt|syscall overrides the choice.
#include <string>
#include <string_view>

#include "iotap/engine.h"

namespace iotap::session {

struct ChosenSource {
  engine::RequestSource source = engine::RequestSource::syscall;
  std::string why;         // for the status line: "dd has no USDT probes iotap knows"
  std::string script;      // the example that prints them: "events.stp", "replay_events.stp", ...
  std::string provider{};  // whose USDT probes: "block_hasher", "io_replayer"; empty: syscall
};

// `program`: the traced program's host path ("" when unknown); `asked`: --requests's value, ""
// when not given. Throws UserError for a value that is neither, or for usdt asked of a program
// without the probes.
ChosenSource choose_request_source(const std::string& program, std::string_view asked);

// Whose USDT requests `program` has: "block_hasher" (read_start, read_done), "io_replayer"
// (request_start, request_done), or "" for none iotap knows.
std::string known_usdt_provider(const std::string& program);

}  // namespace iotap::session
