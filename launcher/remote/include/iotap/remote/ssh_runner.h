#pragma once
// --target ssh://HOST as a runner/runner.h: compiled here for the host's kernel (its headers on
// this machine), run there under its staprun (remote/ssh_target.h).
#include <sys/types.h>

#include <string>
#include <vector>

#include "iotap/remote/ssh_target.h"
#include "iotap/runner/runner.h"

namespace iotap::remote {

class SshRunner final : public runner::Runner {
 public:
  // `facts`: what the host said of itself (ask_host). Checks that this machine has the headers
  // of the host's kernel (stap compiles here): a UserError otherwise.
  SshRunner(SshHost host, HostFacts facts);

  [[nodiscard]] std::string kernel_release() const override { return facts_.release; }
  void check_programs(const std::vector<std::string>& programs,
                      const std::vector<std::string>& files) const override;
  void check_pid_program(pid_t pid, const std::string& program) const override;
  std::string compile_kernel(bool symbols, const runner::StatusSink& status) override;
  runner::RunResult run(const runner::ModuleBuilder& build_module,
                        const runner::RunRequest& request,
                        const runner::RunEvents& events) override;

 private:
  [[nodiscard]] std::string kallsyms() const;

  SshHost host_;
  HostFacts facts_;
};

}  // namespace iotap::remote
