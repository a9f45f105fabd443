#include "stap/stap_stderr.h"

#include <cctype>
#include <charconv>

namespace iotap::stap {

namespace {
constexpr std::string_view kExitMarker = "WARNING: iotap-target-exit ";
}

bool is_known_noise(std::string_view line) {
  return line.starts_with("WARNING: Kernel function symbol table missing") ||
         line.starts_with("Tip: /usr/share/doc/systemtap/README.Debian");
}

void StapStderr::feed(std::string_view bytes) {
  pending_ += bytes;
  size_t start = 0;
  for (size_t nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
    line(std::string_view(pending_).substr(start, nl - start));
    start = nl + 1;
  }
  pending_.erase(0, start);
}

void StapStderr::flush() {
  if (!pending_.empty()) line(pending_);
  pending_.clear();
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
  if (text.starts_with(kExitMarker)) {
    // The kernel's exit_code: (status << 8) for an exit, the signal number for a kill.
    int code = 0;
    const std::string_view digits = std::string_view(text).substr(kExitMarker.size());
    if (std::from_chars(digits.data(), digits.data() + digits.size(), code).ec == std::errc()) {
      target_exit_status_ = (code & 0x7f) != 0 ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
    }
    return;
  }
  if (is_known_noise(text)) return;
  forward_(text + "\n");
}

}  // namespace iotap::stap
