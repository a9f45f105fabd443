#pragma once
// A stream that may open with one framed block: "TAG BYTES\n" and then exactly BYTES bytes,
// before the stream proper. The guest sends its /proc/kallsyms this way, ahead of the run's
// output on the same port, so the host has the symbol table before the first line it names.
// (A block on a port of its own would race with the output: ports are read independently.)
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace iotap::guest {

class LeadingBlock {
 public:
  // `block` receives the block once it is whole; `rest` receives everything after it. When the
  // stream does not open with "TAG ", or TAG is empty, everything goes to `rest` and `block` is
  // never called.
  LeadingBlock(const std::string& tag, std::function<void(std::string)> block,
               std::function<void(std::string_view)> rest);

  void feed(std::string_view bytes);
  // The stream ended: whatever is held back (a header or block cut short) goes to `rest`.
  void finish();

 private:
  enum class State { kHeader, kBody, kPassing };
  std::string tag_;
  std::function<void(std::string)> block_;
  std::function<void(std::string_view)> rest_;
  State state_ = State::kHeader;
  std::string held_;
  size_t body_bytes_ = 0;
};

}  // namespace iotap::guest
