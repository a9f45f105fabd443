#include "verbs/target_options.h"

#include <gtest/gtest.h>

#include "target/vm/stack_spec.h"
#include "util/error.h"

namespace iotap::verbs {
namespace {

TEST(ResolveCommand, WorkloadsByBareNameAndDevSubstituted) {
  const auto stack = vm::plan_stack(vm::parse_stack_spec("raid0(ram*2)"));
  const auto command = resolve_command("block_hasher -d __DEV__ -b 1048576 -t '8'", stack);
  EXPECT_TRUE(command.program.ends_with("/workloads/block_hasher/block_hasher")) << command.program;
  EXPECT_EQ(command.argv, (std::vector<std::string>{command.program, "-d", "/dev/md0", "-b",
                                                    "1048576", "-t", "8"}));
}

TEST(ResolveCommand, WordsAreCutAsShQuotesThem) {
  const auto command = resolve_command(R"(true \''x' "it's" 'a b' '' $HOME *)", std::nullopt);
  EXPECT_EQ(command.argv,
            (std::vector<std::string>{command.program, "'x", "it's", "a b", "", "$HOME", "*"}));
  EXPECT_THROW(resolve_command("true 'x", std::nullopt), UserError);
  EXPECT_THROW(resolve_command("true \"x", std::nullopt), UserError);
}

TEST(ResolveCommand, ProgramsFromPathAndErrors) {
  EXPECT_EQ(resolve_command("true", std::nullopt).argv.size(), 1U);
  EXPECT_THROW(resolve_command("no-such-program-anywhere", std::nullopt), UserError);
  EXPECT_THROW(resolve_command("block_hasher -d __DEV__", std::nullopt), UserError);
  EXPECT_THROW(resolve_command("   ", std::nullopt), UserError);
  EXPECT_THROW(resolve_command("/etc/passwd", std::nullopt), UserError);
}

TEST(TargetOptions, CombinationsThatCannotWork) {
  TargetOptions local_stack;
  local_stack.stack_text = "raid0(ram*2)";
  EXPECT_THROW(check_target_options(local_stack), UserError);
  TargetOptions vm_pid;
  vm_pid.target = Target::kVm;
  vm_pid.pid = 1;
  EXPECT_THROW(check_target_options(vm_pid), UserError);
  TargetOptions both;
  both.command_line = "true";
  both.pid = 1;
  EXPECT_THROW(check_target_options(both), UserError);
}

}  // namespace
}  // namespace iotap::verbs
