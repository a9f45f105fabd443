#include "iotap/guest/guest_requirements.h"

#include "accelerator.h"
#include "iotap/util/error.h"
#include "kernel.h"

namespace iotap::guest {

std::string guest_kernel_problem(const std::string& release) {
  try {
    (void)GuestKernel::find(release);
    return {};
  } catch (const UserError& error) {
    // What is wrong, without the message's "(install ...)": the doctor gives its own fix.
    const std::string message = error.what();
    return message.substr(0, message.find(" ("));
  }
}

bool guest_has_kvm() {
  return host_accelerator() == Accelerator::kKvm;
}

}  // namespace iotap::guest
