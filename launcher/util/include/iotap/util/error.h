#pragma once
// The one exception type a user ever sees: a one-line message saying what is wrong and what
// to do. main() prints it as "iotap: <message>" and exits with status 2.
#include <stdexcept>
#include <string>

namespace iotap {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A machine iotap was tracing went away mid-run (--target ssh://: the connection dropped, the
// host rebooted): not the user's input, so main() exits with exit_status::kTargetLost.
class TargetLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The verb's work is done before anything was traced, as asked (--save-module wrote its module):
// main() prints the message and exits 0.
class FinishedEarly : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ends a message about something this machine lacks (a package, a kernel feature): the doctor
// checks all of them at once, so the user fixes them in one go rather than one per run.
inline constexpr const char* kDoctorHint = "'iotap doctor' checks the rest";

}  // namespace iotap
