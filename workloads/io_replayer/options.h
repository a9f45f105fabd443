// io_replayer's command line, parsed into a plain struct (unit-tested: options_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "iotap/recording/pace.h"

namespace io_replayer {

using iotap::recording::Pace;
using iotap::recording::pace_name;

struct Options {
  std::string recording;
  std::string device;
  Pace pace;
  bool allow_writes = false;
  bool json = false;
  bool help = false;
};

// Throws Error with the line to print.
Options parse_options(const std::vector<std::string>& args);  // args[0] is the program
// --pace's value, or Error saying what it takes.
Pace parse_pace(const std::string& text);
std::string usage();

}  // namespace io_replayer
