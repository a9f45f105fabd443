#include "iotap/stap/stap_stderr.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace iotap::stap {

namespace {
// stapio's own report of the -c command's end; it says nothing when the status is 0.
constexpr std::string_view kExitedWithStatus = "WARNING: Child process exited with status ";
constexpr std::string_view kExitedWithSignal = "WARNING: Child process exited with signal ";

std::optional<int> leading_number(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}
}  // namespace

namespace {
// The C++ runtime's libraries that iotap callgraph probes by their symbol tables
// (exception_probes.h): Debian ships them without DWARF, which those probes do not need.
bool is_runtime_library_without_dwarf(std::string_view line) {
  return line.starts_with("WARNING: cannot find module ") &&
         line.find("debuginfo: No DWARF information found") != std::string_view::npos &&
         (line.find("/libgcc_s.so") != std::string_view::npos ||
          line.find("/libstdc++.so") != std::string_view::npos);
}

// kbuild's objtool on a 6.12 kernel (IBT): stap's module keeps its .eh_frame for its own
// unwinder, and each function that entry points to is "data relocation to !ENDBR", one line a
// function (about 60 a module). Only indirect branches care, and nothing branches through
// .eh_frame.
bool is_objtool_eh_frame_endbr(std::string_view line) {
  return line.find(": warning: objtool: .eh_frame+") != std::string_view::npos &&
         line.find(": data relocation to !ENDBR: ") != std::string_view::npos;
}

}  // namespace

bool is_known_noise(std::string_view line) {
  return line.starts_with("WARNING: Kernel function symbol table missing") ||
         line.starts_with("Tip: /usr/share/doc/systemtap/README.Debian") ||
         is_runtime_library_without_dwarf(line) || is_objtool_eh_frame_endbr(line) ||
         // stap's tail after the warnings above, which say nothing without them
         line.starts_with("Number of similar warning messages suppressed: ") ||
         line.starts_with("Rerun with -v to see them.");
}

void StapStderr::name_script(std::string copy_path, std::string user_name) {
  copy_path_ = std::move(copy_path);
  user_name_ = std::move(user_name);
}

bool is_systemtap_message(std::string_view line) {
  static constexpr std::array<std::string_view, 11> kPrefixes{
      "WARNING:",           "ERROR:",      "staprun:", "stapio:", "staprun ",       "stapio ",
      "Number of similar ", "Rerun with ", "Tip: ",    "Pass ",   "semantic error:"};
  return std::ranges::any_of(kPrefixes,
                             [line](std::string_view prefix) { return line.starts_with(prefix); });
}

void StapStderr::feed(std::string_view bytes) {
  lines_.feed(bytes, [this](std::string_view text) { line(text); });
}

void StapStderr::flush() {
  lines_.finish([this](std::string_view text) { line(text); });
}

void StapStderr::line(std::string_view raw) {
  // stap colours its messages when it thinks it writes to a terminal; drop the escapes.
  std::string text;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      i += 2;
      while (i < raw.size() && (std::isalpha(static_cast<unsigned char>(raw[i])) == 0)) ++i;
      continue;
    }
    if (raw[i] != '\r') text += raw[i];
  }
  if (text.starts_with(kExitedWithStatus)) {
    target_exit_status_ = leading_number(std::string_view(text).substr(kExitedWithStatus.size()));
    return;
  }
  if (text.starts_with(kExitedWithSignal)) {
    const auto signal = leading_number(std::string_view(text).substr(kExitedWithSignal.size()));
    if (signal) target_exit_status_ = 128 + *signal;
    return;
  }
  if (is_known_noise(text)) return;
  if (!copy_path_.empty()) {
    for (size_t at = text.find(copy_path_); at != std::string::npos;
         at = text.find(copy_path_, at + user_name_.size())) {
      text.replace(at, copy_path_.size(), user_name_);
    }
  }
  if (!is_systemtap_message(text)) {
    if (text.find_first_not_of(" \t") != std::string::npos) last_program_line_ = text;
    if (program_line_) return program_line_(text);
  }
  forward_(text + "\n");
}

}  // namespace iotap::stap
