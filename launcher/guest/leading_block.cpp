#include "leading_block.h"

#include <charconv>

namespace iotap::guest {

LeadingBlock::LeadingBlock(const std::string& tag, std::function<void(std::string)> block,
                           std::function<void(std::string_view)> rest)
    : tag_(tag + " "),
      block_(std::move(block)),
      rest_(std::move(rest)),
      state_(tag.empty() ? State::kPassing : State::kHeader) {}

void LeadingBlock::feed(std::string_view bytes) {
  if (state_ == State::kPassing) {
    rest_(bytes);
    return;
  }
  held_.append(bytes);
  if (state_ == State::kHeader) {
    const size_t compare = std::min(held_.size(), tag_.size());
    if (held_.compare(0, compare, tag_, 0, compare) != 0) {
      state_ = State::kPassing;
      rest_(held_);
      held_.clear();
      return;
    }
    const size_t newline = held_.find('\n');
    if (newline == std::string::npos) return;
    const char* first = held_.data() + tag_.size();
    const char* last = held_.data() + newline;
    const auto [end, error] = std::from_chars(first, last, body_bytes_);
    if (error != std::errc() || end != last) {
      state_ = State::kPassing;
      rest_(held_);
      held_.clear();
      return;
    }
    held_.erase(0, newline + 1);
    state_ = State::kBody;
  }
  if (held_.size() < body_bytes_) return;
  std::string after = held_.substr(body_bytes_);
  held_.resize(body_bytes_);
  state_ = State::kPassing;
  block_(std::move(held_));
  held_.clear();
  if (!after.empty()) rest_(after);
}

void LeadingBlock::finish() {
  if (state_ != State::kPassing && !held_.empty()) rest_(held_);
  held_.clear();
  state_ = State::kPassing;
}

}  // namespace iotap::guest
