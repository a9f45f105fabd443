// A mistake the user can fix: bad options, a device that cannot be used. main() prints it as
// one line, "block_hasher: <what> (<hint>)", and exits 2, so scripts and the launcher can
// tell "you asked for something wrong" (2) from "the device failed reads" (1).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace block_hasher {

class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& what, std::string hint)
      : std::runtime_error(what), hint_(std::move(hint)) {}

  [[nodiscard]] const std::string& hint() const { return hint_; }

  // The single stderr line, without the trailing newline.
  [[nodiscard]] std::string line() const {
    return "block_hasher: " + std::string(what()) + " (" + hint_ + ")";
  }

 private:
  std::string hint_;
};

}  // namespace block_hasher
