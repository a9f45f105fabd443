#pragma once
// The stap options a user's script may be run with (iotap run -D/-G/-g/-v/-T ...): checked
// before anything is compiled, then turned into words for stap's compile, for staprun, and for
// the module itself (-G values are module parameters, set when staprun loads it).
#include <string>
#include <string_view>
#include <vector>

namespace iotap::stap {

struct StapOptions {
  std::vector<std::string> defines;  // -D NAME or NAME=VALUE, as checked by check_define
  std::vector<std::string> globals;  // -G NAME=VALUE, as checked by check_global
  // -d MODULE: unwind and symbol data for a kernel module (by name, or the path of its file) or
  // a program, as checked by check_unwind_module. For --target vm the launcher replaces each
  // name with the guest kernel's own file for it (guest/guest_modules.h).
  std::vector<std::string> unwind_modules;
  // --all-modules: stap's reads this machine's /proc/modules; for --target vm the launcher
  // replaces it with a -d for each module the guest will have loaded.
  bool all_modules = false;
  bool guru = false;  // -g
  bool suppress_time_limits = false;
  unsigned verbosity = 0;           // how many -v
  unsigned exit_after_seconds = 0;  // -T; 0: none
  // -t: each probe's hits and cycles, reported into the output at exit (stap/hit_report.h).
  bool probe_timing = false;
};

// stap's own safety patterns (stap 4.8, main.cxx), checked here so that a typo fails at once
// with one line instead of after the guest's kernel is looked up. Each returns `text` or throws
// UserError naming the option and the form it takes.
std::string check_define(std::string_view text);  // NAME[=VALUE]: letters, digits, _
std::string check_global(std::string_view text);  // NAME=VALUE: VALUE of letters, digits, _.-
// -d: a module name (letters, digits, _ and -), "kernel", or the path of a file that exists.
std::string check_unwind_module(std::string_view text);

// SystemTap 4.8's keywords (parse.cxx's, and "private"): no script can name a global so.
bool is_stap_keyword(std::string_view word);

// Combinations stap refuses only after reading the script: --suppress-time-limits without -g.
void check_stap_options(const StapOptions& options);

// Words for `stap -p4`, before the script: -D, -g, -d, --all-modules, -v, -T, ...
std::vector<std::string> compile_words(const StapOptions& options);
// Words for staprun, before the module: -v per -v (staprun's and stapio's own messages).
std::vector<std::string> staprun_words(const StapOptions& options);
// Words for staprun after the module: the -G assignments, as stap's pass 5 passes them.
std::vector<std::string> module_words(const StapOptions& options);

}  // namespace iotap::stap
