#pragma once
// The runner (runner/runner.h) for the options' --target: a guest, an ssh host or this machine.
#include <memory>
#include <optional>

#include "iotap/runner/runner.h"
#include "iotap/session/target_options.h"
#include "iotap/stack_spec/stack_plan.h"

namespace iotap::session {

// What the target checks before anything else is done: this machine's kernel, headers,
// staprun and privilege (--target local, --module, --save-module), the host's facts and its
// kernel's headers here (ssh://). `stack`: the planned --stack (plan_target_stack()).
std::unique_ptr<runner::Runner> runner_for(const TargetOptions& options,
                                           const std::optional<stack_spec::StackPlan>& stack);

}  // namespace iotap::session
