#pragma once
// Owns cutting text into lines: a byte stream fed in pieces cut anywhere (LineSplitter), or a
// whole text (for_each_line). Lines are passed without their '\n'.
#include <string>
#include <string_view>

namespace iotap {

class LineSplitter {
 public:
  // Calls on_line(std::string_view) for each line that `bytes` completes; the rest is held.
  template <typename OnLine>
  void feed(std::string_view bytes, OnLine&& on_line) {
    pending_ += bytes;
    size_t start = 0;
    for (size_t nl = pending_.find('\n'); nl != std::string::npos;
         nl = pending_.find('\n', start)) {
      on_line(std::string_view(pending_).substr(start, nl - start));
      start = nl + 1;
    }
    pending_.erase(0, start);
  }
  // The stream ended: a last line without its '\n' is passed too.
  template <typename OnLine>
  void finish(OnLine&& on_line) {
    if (!pending_.empty()) on_line(std::string_view(pending_));
    pending_.clear();
  }

 private:
  std::string pending_;
};

// Each line of `text`; a last line without '\n' counts, nothing follows a final '\n'.
template <typename OnLine>
void for_each_line(std::string_view text, OnLine&& on_line) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    on_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace iotap
