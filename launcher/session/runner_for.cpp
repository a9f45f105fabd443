#include "iotap/session/runner_for.h"

#include "iotap/guest/guest_runner.h"
#include "iotap/local/local_runner.h"
#include "iotap/remote/ssh_runner.h"
#include "iotap/session/postgres_options.h"

namespace iotap::session {

std::unique_ptr<runner::Runner> runner_for(const TargetOptions& options,
                                           const std::optional<stack_spec::StackPlan>& stack) {
  switch (options.target) {
    case Target::kVm:
      return std::make_unique<guest::GuestRunner>(guest_kernel_release(options), stack,
                                                  options.memory_mib, postgres_run(options, stack));
    case Target::kSsh:
      return std::make_unique<remote::SshRunner>(*options.ssh_host, host_facts(options));
    case Target::kLocal:
      break;
  }
  return std::make_unique<local::LocalRunner>(
      local::LocalOptions{.release = target_kernel_release(options),
                          .module_path = options.module_path,
                          .save_module = !options.save_module_path.empty(),
                          .guest_kallsyms = guest::harvest_guest_kallsyms});
}

}  // namespace iotap::session
