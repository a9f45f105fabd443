// What io_replayer reports as its own failure (bad options, a recording it cannot replay, a
// device it cannot open): one line on stderr, exit 2.
#pragma once

#include <stdexcept>

namespace io_replayer {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace io_replayer
