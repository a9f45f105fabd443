#pragma once
// A user's .stp made ready to compile: SPDK's bpftrace.sh markers replaced.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace iotap::stap {

// As `value` must be written inside a stap string literal to read back as itself.
std::string string_literal_body(std::string_view value);

struct Markers {
  std::optional<std::string> exe;  // __EXE__: absolute path of the traced program
  std::optional<pid_t> pid;        // __PID__: the attached process
};

// The script's text. Throws UserError, before anything slow happens, when the path is missing,
// unreadable, empty, or not a regular file: a directory would reach stap as "Input file is
// empty", and opening a FIFO would wait forever for a writer.
std::string read_script(const std::string& script_path);

// Replaces the markers where stap would see them: in code, in string literals (escaped, so a
// path with a quote stays one string) and in %{ embedded C %}; never in # // /* */ comments,
// where they are prose. Line and column counts outside the replaced markers are kept, so stap's
// messages point at the user's lines. Throws UserError when the script uses a marker that has no
// value (e.g. __PID__ without -x); `script_name` names the script in that message.
std::string substitute_markers(std::string_view text, const Markers& markers,
                               const std::string& script_name);

// Whether `script_path` is one of the scripts in `examples_dir` (iotap's bundled examples), by
// what both name once links are followed; false when either is missing.
bool is_bundled_example(const std::string& script_path, const std::string& examples_dir);

// read_script, then substitute_markers.
std::string prepare_script(const std::string& script_path, const Markers& markers);

}  // namespace iotap::stap
