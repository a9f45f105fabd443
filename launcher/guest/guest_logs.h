#pragma once
// What a failed guest left in its logs (console.log, qemu.log), for the message that says so.
#include <cstddef>
#include <string>

namespace iotap::guest {

// The file's last `count` lines, each indented by four spaces and ended by '\n' (a tty's '\r'
// taken off); empty when it cannot be read.
std::string last_lines(const std::string& path, size_t count);

}  // namespace iotap::guest
