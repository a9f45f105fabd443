#include "iotap/guest/guest_logs.h"

#include <deque>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace iotap::guest {

std::string last_lines(const std::string& path, size_t count) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  // An empty log says so: a heading over nothing reads as if the lines were lost.
  if (lines.empty()) return "    (nothing)\n";
  std::string out;
  for (const auto& kept : lines) out += "    " + kept + "\n";
  return out;
}

namespace {

// A console line's text, without the "[  600.493260] " time stamp or a tty's '\r'.
std::string console_text(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.starts_with("[")) {
    const size_t at = line.find("] ");
    if (at != std::string::npos) return line.substr(at + 2);
  }
  return line;
}

// " foo+0x1c/0x30 [mod]" -> "foo+0x1c/0x30 [mod]"; empty for a frame the unwinder marks "?" (a
// stale address on the stack) or for a line that is no frame.
std::string sure_frame(const std::string& text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos || text[first] == '?' || text[first] == '<') return "";
  if (text.find("+0x") == std::string::npos) return "";
  return text.substr(first);
}

}  // namespace

std::string kernel_failure(const std::string& console_log) {
  constexpr size_t kMostFrames = 10;
  std::ifstream in(console_log);
  std::string bug;
  std::string rip;
  std::vector<std::string> frames;
  bool in_trace = false;
  bool trace_done = false;
  std::string panic;
  for (std::string line; std::getline(in, line);) {
    const std::string text = console_text(line);
    if (bug.empty() && text.find("BUG: ") != std::string::npos) {
      bug = text;
      continue;
    }
    if (panic.empty() && text.starts_with("Kernel panic")) panic = text;
    if (bug.empty() || trace_done) continue;
    // The first trace after the BUG line is its CPU's: where it was, and how it got there.
    if (rip.empty() && text.starts_with("RIP: 0010:")) rip = text.substr(10);
    if (text.starts_with("Call Trace:")) {
      in_trace = true;
    } else if (in_trace && text.find("</TASK>") != std::string::npos) {
      trace_done = true;
    } else if (in_trace && frames.size() < kMostFrames) {
      if (std::string frame = sure_frame(text); !frame.empty()) frames.push_back(std::move(frame));
    }
  }
  std::string out;
  if (!bug.empty()) out += "\n  the guest's kernel: " + bug;
  if (!rip.empty()) out += "\n  its CPU at: " + rip;
  if (!frames.empty()) {
    out += "\n  called from: ";
    for (size_t i = 0; i < frames.size(); ++i) out += (i == 0 ? "" : " < ") + frames[i];
  }
  if (!panic.empty()) out += "\n  the guest's kernel: " + panic;
  return out;
}

}  // namespace iotap::guest
