#include "iotap/session/target_options.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/config.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"
#include "parse_target_options.h"

namespace iotap::session {
namespace {

TEST(ResolveCommand, WorkloadsByBareNameAndDevSubstituted) {
  const auto stack = stack_spec::plan_stack(stack_spec::parse_stack_spec("raid0(ram*2)"));
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

TEST(ResolveCommand, ArgumentsNamingHostFilesBecomeAbsoluteAndAreListedForTheGuest) {
  const TempDir dir("iotap-resolve-test");
  write_file(dir.path() + "/hasher.rec", "x");
  const auto relative = std::filesystem::relative(dir.path() + "/hasher.rec");
  const auto command = resolve_command(
      "true -r " + relative.string() + " -d /dev/null /proc/cpuinfo no-such-file " + dir.path(),
      std::nullopt);
  EXPECT_EQ(command.files, std::vector<std::string>{dir.path() + "/hasher.rec"});
  EXPECT_EQ(command.argv,
            (std::vector<std::string>{command.program, "-r", dir.path() + "/hasher.rec", "-d",
                                      "/dev/null", "/proc/cpuinfo", "no-such-file", dir.path()}));
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

TEST(TargetOptions, KernelReleaseOfTheTracedKernel) {
  TargetOptions vm;
  vm.target = Target::kVm;
  EXPECT_EQ(target_kernel_release(vm), config::kGuestKernel);
  std::string release = read_file("/proc/sys/kernel/osrelease");
  if (!release.empty() && release.back() == '\n') release.pop_back();
  EXPECT_EQ(target_kernel_release({}), release);
}

std::string program_error(const TargetOptions& options) {
  try {
    require_one_program(options, "to watch", " (see 'iotap x --help')");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(TargetOptions, ExactlyOneOfCommandAndPid) {
  EXPECT_EQ(program_error({}),
            "give the program to watch: -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 "
            "--direct' or -x PID (see 'iotap x --help')");
  TargetOptions both;
  both.command_line = "true";
  both.pid = 1;
  EXPECT_EQ(program_error(both), "-c and -x exclude each other: start a program or attach to one");
  TargetOptions command;
  command.command_line = "true";
  EXPECT_EQ(program_error(command), "");
  TargetOptions pid;
  pid.pid = 1;
  EXPECT_EQ(program_error(pid), "");
}

std::string number_error(const NumberOption& option, const std::string& text) {
  try {
    parse_positive_number(option, text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(NumberOptions, NegativeZeroAndJunkAreRefusedNotWrapped) {
  EXPECT_EQ(number_error(kTimeoutOption, "-5"),
            "--timeout must be a positive number of seconds, got '-5'");
  EXPECT_EQ(number_error(kMemoryOption, "-1"),
            "--memory must be a positive number of MiB, got '-1'");
  EXPECT_EQ(number_error(kMemoryOption, "0"), "--memory must be a positive number of MiB, got '0'");
  EXPECT_EQ(number_error(kPidOption, "-1"),
            "-x must be a process id (a positive number), got '-1'");
  for (const char* junk : {"", "+5", " 5", "5 ", "5s", "0x10", "1e3", "5.0", "--5"})
    EXPECT_NE(number_error(kTimeoutOption, junk), "") << junk;
  EXPECT_EQ(number_error(kTimeoutOption, "4294967296"),
            "--timeout must be at most 4294967295 seconds, got '4294967296'");
  EXPECT_EQ(number_error(kTimeoutOption, "99999999999999999999999"),
            "--timeout must be at most 4294967295 seconds, got '99999999999999999999999'");
  EXPECT_EQ(number_error(kPidOption, "4194305"), "-x must be at most 4194304, got '4194305'");
  EXPECT_EQ(parse_positive_number(kTimeoutOption, "4294967295"), 4294967295U);
  EXPECT_EQ(parse_positive_number(kMemoryOption, "007"), 7U);
}

// Boost hands "-5" over as the value of --timeout (it does not take it for an option), so the
// check sees it; and the numbers reach TargetOptions.
TEST(NumberOptions, ThroughTheCommandLine) {
  const auto parse = [](const std::vector<std::string>& args) {
    return parse_target_options(args);
  };
  EXPECT_THROW(parse({"--timeout", "-5"}), UserError);
  EXPECT_THROW(parse({"--memory=-1"}), UserError);
  EXPECT_THROW(parse({"-x", "-1"}), UserError);
  const TargetOptions defaults = parse({});
  EXPECT_EQ(defaults.memory_mib, 1024U);
  EXPECT_EQ(defaults.timeout_seconds, 0U);
  const TargetOptions given = parse({"--timeout", "30", "--memory", "2048", "-x", "77"});
  EXPECT_EQ(given.timeout_seconds, 30U);
  EXPECT_EQ(given.memory_mib, 2048U);
  EXPECT_EQ(given.pid, 77);
}

TEST(TargetOptions, TheStackIsPlannedAndCheckedAgainstMemory) {
  TargetOptions options;
  options.target = Target::kVm;
  options.stack_text = "raid0(ram:256M*2)";
  EXPECT_EQ(plan_target_stack(options)->ram_disks, 2U);
  options.memory_mib = 512;
  EXPECT_THROW(plan_target_stack(options), UserError);
  options.target = Target::kLocal;
  EXPECT_FALSE(plan_target_stack(options));
}

}  // namespace
}  // namespace iotap::session
