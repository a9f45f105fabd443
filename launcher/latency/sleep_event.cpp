#include "iotap/latency/sleep_event.h"

#include <charconv>

namespace iotap::latency {
namespace {

class Words {
 public:
  explicit Words(std::string_view text) : text_(text) {}
  std::optional<std::string_view> next() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
    if (at_ >= text_.size()) return std::nullopt;
    const size_t start = at_;
    while (at_ < text_.size() && text_[at_] != ' ' && text_[at_] != '\t') ++at_;
    return text_.substr(start, at_ - start);
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

template <typename Number>
std::optional<Number> number(std::optional<std::string_view> word) {
  if (!word) return std::nullopt;
  Number value{};
  const auto [end, error] = std::from_chars(word->data(), word->data() + word->size(), value);
  if (error != std::errc() || end != word->data() + word->size()) return std::nullopt;
  return value;
}

symbols::Frame frame_of(std::string_view word) {
  symbols::Frame frame;
  if (word.substr(0, 2) == "0x") {
    std::from_chars(word.data() + 2, word.data() + word.size(), frame.address, 16);
    return frame;
  }
  frame.function = std::string(word.substr(0, word.find('+')));
  return frame;
}

}  // namespace

std::optional<SleepEvent> parse_sleep_event(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  Words words(line);
  const auto kind = words.next();
  if (!kind || (*kind != "S" && *kind != "W" && *kind != "E")) return std::nullopt;
  SleepEvent event;
  if (*kind == "E") {
    const auto cpu = number<uint32_t>(words.next());
    const auto last = number<uint64_t>(words.next());
    if (!cpu || !last || words.next()) return std::nullopt;
    event.kind = SleepEvent::Kind::kEnd;
    event.cpu = *cpu;
    event.seq = *last;
    return event;
  }
  event.kind = *kind == "S" ? SleepEvent::Kind::kSleep : SleepEvent::Kind::kWakeup;
  const auto timestamp = number<uint64_t>(words.next());
  const auto cpu = number<uint32_t>(words.next());
  const auto seq = number<uint64_t>(words.next());
  const auto tid = number<int>(words.next());
  if (!timestamp || !cpu || !seq || !tid) return std::nullopt;
  event.timestamp_ns = *timestamp;
  event.cpu = *cpu;
  event.seq = *seq;
  event.tid = *tid;
  if (event.kind == SleepEvent::Kind::kWakeup) {
    if (words.next()) return std::nullopt;  // two lines run together
    return event;
  }
  const auto state = number<unsigned>(words.next());
  if (!state) return std::nullopt;
  event.state = *state;
  while (const auto word = words.next()) {
    if (word->size() > 2 && word->front() == '[' && word->back() == ']') {
      if (!event.frames.empty()) event.frames.back().module = word->substr(1, word->size() - 2);
      continue;
    }
    symbols::Frame frame = frame_of(*word);
    // The first frames are the probe handler's own, in a module loaded after the symbol table
    // was read: they have no name and are not the thread's.
    if (event.frames.empty() && frame.function.empty()) continue;
    // The unwinder reports the frame it starts from twice (regs, then stack): keep one.
    if (!event.frames.empty() && event.frames.back().function == frame.function &&
        event.frames.back().address == frame.address)
      continue;
    event.frames.push_back(std::move(frame));
  }
  return event;
}

}  // namespace iotap::latency
