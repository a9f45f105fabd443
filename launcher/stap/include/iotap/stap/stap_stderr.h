#pragma once
// What staprun and stap write on stderr, passed on to the user line by line, less what iotap
// consumes itself: stapio's report of how the -c program ended (iotap exits with that status)
// and warnings that say nothing about the user's script.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "iotap/util/lines.h"

namespace iotap::stap {

class StapStderr {
 public:
  // `forward` gets SystemTap's lines; `program_line` (when set) the -c program's own, which
  // share the stream (every line that is not SystemTap's: see is_systemtap_message), each
  // without its newline. Without `program_line`, those go to `forward` too.
  explicit StapStderr(std::function<void(std::string_view)> forward,
                      std::function<void(std::string_view)> program_line = {})
      : forward_(std::move(forward)), program_line_(std::move(program_line)) {}

  // stap compiles iotap's copy of a script (markers substituted, in a private temp dir) and
  // names that copy in its warnings and in the module's run-time errors; from here on, lines
  // name `user_name` instead. The copy has the user's line numbers (see substitute_markers).
  void name_script(std::string copy_path, std::string user_name);

  void feed(std::string_view bytes);
  void flush();

  // The -c program's exit status as a shell reports it (128 + signal when killed), when stapio
  // reported one; stapio reports only non-zero ones.
  [[nodiscard]] std::optional<int> target_exit_status() const { return target_exit_status_; }

  // The last non-blank line the program wrote on stderr ("block_hasher: cannot open ..."): why
  // it ended, when it ended at once. Empty when it wrote none.
  [[nodiscard]] const std::string& last_program_line() const { return last_program_line_; }

 private:
  void line(std::string_view raw);

  std::function<void(std::string_view)> forward_;
  std::string copy_path_;
  std::string user_name_;
  std::function<void(std::string_view)> program_line_;
  std::string last_program_line_;
  LineSplitter lines_;
  std::optional<int> target_exit_status_;
};

// True for stap warnings that iotap knows are harmless for the guest kernel (the missing
// kernel symbol table: tracepoints and USDT probes do not need it).
bool is_known_noise(std::string_view line);

// True for the lines staprun, stapio and the module write ("WARNING: ...", "ERROR: ...",
// "staprun: ..."); the -c program's stderr is the rest.
bool is_systemtap_message(std::string_view line);

}  // namespace iotap::stap
