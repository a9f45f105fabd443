#pragma once
// Whole-number options (--timeout, --memory, --slowest, -x). Boost.Program_options reads an
// unsigned "-5" as 4294967291; these take the text and refuse anything but a positive number,
// so a typo fails before anything is compiled or booted.
#include <boost/program_options/value_semantic.hpp>
#include <cstdint>
#include <functional>
#include <string>

namespace iotap::session {

struct NumberOption {
  const char* name;  // as the user types it: "--timeout", "-x"
  const char* what;  // what it must be: "a positive number of seconds", "a process id"
  const char* unit;  // after the largest value: "seconds", "MiB", "" for none
  uint64_t most;
};

// The value of `text` for `option`; throws UserError ("--timeout must be a positive number of
// seconds, got '-5'") for a sign, anything that is not digits, zero, or more than option.most.
uint64_t parse_positive_number(const NumberOption& option, const std::string& text);

// A program_options value that parses with parse_positive_number and hands the number to
// `store`; add ->default_value("N") or ->value_name() as for any value.
boost::program_options::typed_value<std::string>* positive_number(
    const NumberOption& option, std::function<void(uint64_t)> store);

}  // namespace iotap::session
