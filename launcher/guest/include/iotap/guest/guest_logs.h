#pragma once
// What a failed guest left in its logs (console.log, qemu.log), for the message that says so.
#include <cstddef>
#include <string>

namespace iotap::guest {

// The file's last `count` lines, each indented by four spaces and ended by '\n' (a tty's '\r'
// taken off); "    (nothing)\n" when it is empty or cannot be read.
std::string last_lines(const std::string& path, size_t count);

// What the guest's kernel said went wrong, from its console log: the first "BUG: " line (a soft
// lockup, an oops), then where its CPU was (the RIP) and the frames of its call trace, the
// ones the unwinder is sure of, innermost first ("its CPU at: ...", "called from: a < b < c"), and
// the first "Kernel panic" line; each on a line of its own starting "\n  ". Empty when the
// console says none of it. A hang's message names the code it hung in, not just the symptom.
std::string kernel_failure(const std::string& console_log);

}  // namespace iotap::guest
