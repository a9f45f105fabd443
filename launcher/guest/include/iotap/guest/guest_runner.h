#pragma once
// --target vm as a runner/runner.h: the guest boots while the module compiles, builds the
// --stack, runs the module and sends back the output, the stack and the disk statistics.
#include <optional>
#include <string>
#include <vector>

#include "iotap/guest/postgres_guest.h"
#include "iotap/runner/runner.h"
#include "iotap/stack_spec/stack_plan.h"

namespace iotap::guest {

struct VmRun;

class GuestRunner final : public runner::Runner {
 public:
  // `release`: the kernel the guest boots (guest_kernels.h's resolve_guest_kernel).
  GuestRunner(std::string release, std::optional<stack_spec::StackPlan> stack, unsigned memory_mib,
              std::optional<PostgresRun> postgres = std::nullopt)
      : release_(std::move(release)),
        stack_(std::move(stack)),
        memory_mib_(memory_mib),
        postgres_(std::move(postgres)) {}

  [[nodiscard]] std::string kernel_release() const override;
  void check_programs(const std::vector<std::string>& programs,
                      const std::vector<std::string>& files) const override;
  void resolve_unwind_modules(std::vector<std::string>& modules, bool& all_modules) const override;
  std::string compile_kernel(bool symbols, const runner::StatusSink& status) override;
  runner::RunResult run(const runner::ModuleBuilder& build_module,
                        const runner::RunRequest& request,
                        const runner::RunEvents& events) override;

 private:
  void add_postgres(VmRun& run) const;

  std::string release_;
  std::optional<stack_spec::StackPlan> stack_;
  unsigned memory_mib_;
  std::optional<PostgresRun> postgres_;  // --postgres
};

// The symbol table of guest kernel `release`, read by booting a guest once without a module.
std::string harvest_guest_kallsyms(const std::string& release, const runner::StatusSink& status);

}  // namespace iotap::guest
