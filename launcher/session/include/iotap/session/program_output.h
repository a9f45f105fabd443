#pragma once
// The one rule for the traced program's own output, in every verb: each line it writes, on
// stdout or on stderr, goes to iotap's stderr prefixed "[NAME] " (NAME: the program's file
// name). iotap's stdout (or -o's file) then carries only the report, text or JSON, and nothing
// the program says is lost. `iotap run` is the exception: its stdout is the user's script's
// stream, passed on as it is, program lines included (iotap cannot tell them apart).
#include <functional>
#include <string>
#include <string_view>

#include "iotap/session/target_options.h"

namespace iotap::session {

// The paragraph of every tracing verb's --help that states the rule.
inline constexpr const char* kProgramOutputHelp =
    R"(the program's output: every line the traced program writes, on stderr and on stdout, goes
to iotap's stderr prefixed with its name ("[block_hasher] total: ..."), so that stdout (or -o's
file) carries only iotap's report, text or JSON. Under `iotap run`, stdout is the script's own
stream and the program's stdout stays in it, as it is.
)";

// "[block_hasher] " for "/path/to/block_hasher".
std::string program_output_prefix(std::string_view program_path);

// Prints one line of the program's (its newline optional) on stderr, after `prefix`.
void print_program_line(const std::string& prefix, std::string_view line);

// print_program_line with the prefix of the program `options` trace (-c or -x); "[program] "
// when there is none. Throws UserError as traced_run would for a -c or -x it cannot resolve.
std::function<void(std::string_view)> program_line_printer(const TargetOptions& options);

}  // namespace iotap::session
