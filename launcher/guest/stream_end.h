#pragma once
// The end of a run's stream on a port that outlives the run. The guest writes a marker line,
// "iotap-end-NONCE\n" with the run's own nonce, after the run's last byte; this passes
// everything before it on and says when it has come. A guest kept for many runs does not close
// its ports between them, so the marker is how the host knows it holds all of a run's output.
#include <functional>
#include <string>
#include <string_view>

namespace iotap::guest {

class StreamEnd {
 public:
  StreamEnd(std::string marker, std::function<void(std::string_view)> rest)
      : marker_(std::move(marker)), rest_(std::move(rest)) {}

  void feed(std::string_view bytes);
  // Whether the marker has come; bytes after it (a background child of the run's program,
  // still writing until the guest's teardown) are dropped.
  [[nodiscard]] bool ended() const { return ended_; }
  // The stream closed: what is held back (a marker cut short, or bytes that only looked like
  // one) goes on.
  void finish();

 private:
  std::string marker_;
  std::function<void(std::string_view)> rest_;
  std::string held_;
  bool ended_ = false;
};

// A fresh marker line for one run: "iotap-end-" and 16 random hex digits.
std::string new_stream_end_marker();

}  // namespace iotap::guest
