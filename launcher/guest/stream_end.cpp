#include "stream_end.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>

namespace iotap::guest {

void StreamEnd::feed(std::string_view bytes) {
  if (ended_ || bytes.empty()) return;
  held_.append(bytes);
  // The marker may come with bytes after it in one read: a program's background child that
  // outlives the run writes on until the guest's teardown kills it. What follows is not the run's.
  if (const size_t at = held_.find(marker_); at != std::string::npos) {
    held_.resize(at);
    if (!held_.empty()) rest_(held_);
    held_.clear();
    ended_ = true;
    return;
  }
  // Held back: only the longest tail that could still become the marker. Everything else goes
  // on now: a live script's line must not wait for the next one.
  size_t keep = std::min(held_.size(), marker_.size() - 1);
  while (keep > 0 && !marker_.starts_with(std::string_view(held_).substr(held_.size() - keep)))
    --keep;
  if (held_.size() > keep) {
    rest_(std::string_view(held_).substr(0, held_.size() - keep));
    held_.erase(0, held_.size() - keep);
  }
}

void StreamEnd::finish() {
  if (!held_.empty()) rest_(held_);
  held_.clear();
}

std::string new_stream_end_marker() {
  std::array<unsigned char, 8> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1)
    throw std::runtime_error("OpenSSL: no random bytes for the stream's end marker");
  std::string marker = "iotap-end-";
  for (const unsigned char byte : random) {
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", byte);
    marker += hex.data();
  }
  return marker + "\n";
}

}  // namespace iotap::guest
