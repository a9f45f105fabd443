// iotap guest: one guest booted once and runs taken one after another, each finding the guest as
// it booted (no md array, dm device or module of the run before), and runs it cannot take
// booting their own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "iotap/util/temp_dir.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

using nlohmann::json;

constexpr const char* kWorkload = "block_hasher -d __DEV__ -b 1048576 -t 4 -n 16 --direct";
// By name: a macro joined to a literal in an argument list reads as a missing comma.
const std::string kUntilStopped = VM_SCRIPTS_DIR "/until_stopped.stp";
const std::string kTicksUntilStopped = VM_SCRIPTS_DIR "/ticks_until_stopped.stp";

// Whether the process runs: not gone, and not a zombie (the daemonized qemu's reaper is
// whoever adopted it, and need not be quick about it).
bool process_runs(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("State:")) return line.find('Z') == std::string::npos;
  }
  return false;
}

class SharedGuestTest : public VmFixture {
 protected:
  // The test's own guest goes first, whatever the test left: then the fixture's check.
  void TearDown() override {
    if (std::filesystem::exists(dir_)) iotap({"guest", "stop", "--dir", dir_});
    VmFixture::TearDown();
  }
  // iotap ARGS... with IOTAP_GUEST naming the test's own guest.
  Captured in_guest(const std::vector<std::string>& args) {
    return iotap(args, {"IOTAP_GUEST=" + dir_});
  }
  Captured diagnose(const std::string& stack, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args{"diagnose", "--json", "--target", "vm",
                                  "--stack",  stack,    "-c",       kWorkload};
    args.insert(args.end(), more.begin(), more.end());
    return in_guest(args);
  }
  // The kernel names of the devices the run's stack had, sorted.
  static std::vector<std::string> device_names(const Captured& run) {
    std::vector<std::string> names;
    const json result = json::parse(run.out);  // not a temporary in the loop: it would dangle
    for (const auto& device : result["devices"]) names.push_back(device["name"]);
    std::sort(names.begin(), names.end());
    return names;
  }
  // iotap ARGS... in the test's guest, its stdout read into `text` until it holds `line` (the
  // script's "started\n" by default); the pid, and the pipe to read the rest from (the caller
  // closes it). Fails the test if iotap ends before.
  std::pair<pid_t, int> start_in_guest(const std::vector<std::string>& args, std::string& text,
                                       const std::string& line = "started\n") {
    std::array<int, 2> out{};
    EXPECT_EQ(::pipe2(out.data(), O_CLOEXEC), 0);
    SpawnOptions options;
    options.stdout_fd = out[1];
    options.extra_env = {"TMPDIR=" + tmp_.path(), "IOTAP_GUEST=" + dir_};
    std::vector<std::string> argv{IOTAP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = spawn(argv, options);
    ::close(out[1]);
    std::array<char, 4096> buffer{};
    while (text.find(line) == std::string::npos) {
      const ssize_t n = ::read(out[0], buffer.data(), buffer.size());
      if (n <= 0) break;
      text.append(buffer.data(), static_cast<size_t>(n));
    }
    EXPECT_NE(text.find(line), std::string::npos) << "iotap ended before its output said " << line;
    return {pid, out[0]};
  }
  int guest_pid() {
    const Captured status = in_guest({"guest", "status", "--dir", dir_});
    std::smatch match;
    static const std::regex kPid(R"(qemu pid (\d+))");
    return std::regex_search(status.out, match, kPid) ? std::stoi(match[1]) : -1;
  }

  TempDir guest_parent_{"iotap-guest-test"};
  std::string dir_ = guest_parent_.path() + "/guest";
};

TEST_F(SharedGuestTest, RunsOneAfterAnotherEachFindingTheGuestAsItBooted) {
  const Captured start = in_guest({"guest", "start", "--dir", dir_});
  ASSERT_EQ(start.status.code, 0) << start.err;
  EXPECT_EQ(start.out, "export IOTAP_GUEST='" + dir_ + "'\n");
  const int pid = guest_pid();
  ASSERT_GT(pid, 0);

  // md and dm, on 4 ram disks; then dm alone on 1, then md alone on 2: each run's devices are
  // numbered from 0 again, which they are only if the run before left none behind.
  const Captured first = diagnose("raid0(ram*3, delay(ram, 20ms))");
  ASSERT_EQ(first.status.code, 0) << first.err;
  EXPECT_NE(first.err.find("running in the guest at " + dir_ + " (IOTAP_GUEST)"), std::string::npos)
      << first.err;
  EXPECT_EQ(first.err.find("booting the guest"), std::string::npos) << first.err;
  EXPECT_EQ(device_names(first),
            (std::vector<std::string>{"dm-0", "md0", "ram0", "ram1", "ram2", "ram3"}));
  EXPECT_EQ(json::parse(first.out)["verdict"]["slow_members"][0]["name"], "dm-0") << first.out;

  const Captured second = diagnose("delay(ram, 5ms)");
  ASSERT_EQ(second.status.code, 0) << second.err;
  EXPECT_EQ(device_names(second), (std::vector<std::string>{"dm-0", "ram0"}));
  const Captured third = diagnose("raid0(ram*2)");
  ASSERT_EQ(third.status.code, 0) << third.err;
  EXPECT_EQ(device_names(third), (std::vector<std::string>{"md0", "ram0", "ram1"}));
  for (const auto* run : {&second, &third}) {
    EXPECT_EQ(run->err.find("booting the guest"), std::string::npos) << run->err;
  }
  EXPECT_EQ(guest_pid(), pid) << "the runs were not all in the one guest";

  // A run the guest cannot take boots its own, and says why.
  const Captured other_memory = diagnose("raid0(ram*2)", {"--memory", "768"});
  EXPECT_EQ(other_memory.status.code, 0) << other_memory.err;
  EXPECT_NE(other_memory.err.find("cannot take this run: it has 1024 MiB, the run asks for 768; "
                                  "booting one for it"),
            std::string::npos)
      << other_memory.err;
  EXPECT_NE(other_memory.err.find("booting the guest"), std::string::npos) << other_memory.err;

  const Captured stop = in_guest({"guest", "stop", "--dir", dir_});
  EXPECT_EQ(stop.status.code, 0) << stop.err;
  EXPECT_FALSE(std::filesystem::exists(dir_)) << "guest stop left its directory";
  EXPECT_FALSE(process_runs(pid)) << "qemu " << pid << " still runs after guest stop";

  // Gone: a run boots its own.
  const Captured after = diagnose("raid0(ram*2)");
  EXPECT_EQ(after.status.code, 0) << after.err;
  EXPECT_NE(after.err.find("no guest runs there"), std::string::npos) << after.err;
}

TEST_F(SharedGuestTest, AGuestAlreadyRunningIsNotStartedTwice) {
  ASSERT_EQ(in_guest({"guest", "start", "--dir", dir_}).status.code, 0);
  const Captured again = in_guest({"guest", "start", "--dir", dir_});
  EXPECT_EQ(again.status.code, 2);
  EXPECT_NE(again.err.find("iotap: a guest already runs at " + dir_ + " (qemu pid "),
            std::string::npos)
      << again.err;
}

// issue 27: a background child of the program (sh -c 'sleep & ...') kept the guest's output
// port open, so the end marker could not be written, and the run waited for it for ever; a
// SIGTERM then waited out the grace period and killed the shared guest. The run ends when the
// program does, as in a guest of its own, and the guest takes the next run.
TEST_F(SharedGuestTest, ABackgroundChildOfTheProgramDoesNotHoldTheRun) {
  ASSERT_EQ(in_guest({"guest", "start", "--dir", dir_}).status.code, 0);
  const int pid = guest_pid();
  ASSERT_GT(pid, 0);
  // A run that waited for the child would reach --timeout long before the child ends.
  const Captured run = in_guest({"run", kUntilStopped, "--target", "vm", "--timeout", "240", "-c",
                                 "/bin/sh -c '/bin/sleep 600 & echo x'"});
  EXPECT_EQ(run.status.code, 0) << run.err;
  EXPECT_NE(run.err.find("running in the guest at " + dir_), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("timed out"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("end probe ran\n"), std::string::npos) << run.out;
  EXPECT_EQ(guest_pid(), pid) << "the shared guest is gone after the run";

  // SIGTERM mid-run, with a background child holding the ports: 143, and the guest stays.
  std::string text;
  const auto [iotap_pid, out] = start_in_guest({"run", kUntilStopped, "--target", "vm", "-c",
                                                "/bin/sh -c '/bin/sleep 600 & /bin/sleep 600'"},
                                               text);
  ::kill(iotap_pid, SIGTERM);
  std::array<char, 4096> buffer{};
  for (ssize_t n = 0; (n = ::read(out, buffer.data(), buffer.size())) > 0;)
    text.append(buffer.data(), static_cast<size_t>(n));
  ::close(out);
  EXPECT_EQ(wait_for(iotap_pid).code, 143);
  EXPECT_NE(text.find("end probe ran\n"), std::string::npos) << text;
  EXPECT_EQ(guest_pid(), pid) << "SIGTERM took the shared guest with the run";

  const Captured after = diagnose("raid0(ram*2)");
  EXPECT_EQ(after.status.code, 0) << after.err;
  EXPECT_NE(after.err.find("running in the guest at " + dir_), std::string::npos) << after.err;
}

// `iotap run x.stp | head` killed iotap by SIGPIPE once head had its lines: the guest stayed
// inside the run and the run's temp dirs stayed behind (the next run had to end the old one).
// A reader that goes away stops the run as a signal would: the guest ends it, nothing is left
// (the fixture checks TMPDIR), and iotap exits 141, as a pipeline's writer does.
TEST_F(SharedGuestTest, AReaderThatGoesAwayEndsTheRunAndTheGuestTakesTheNext) {
  ASSERT_EQ(in_guest({"guest", "start", "--dir", dir_}).status.code, 0);
  const int pid = guest_pid();
  ASSERT_GT(pid, 0);
  std::string text;
  const auto [iotap_pid, out] = start_in_guest(
      {"run", kTicksUntilStopped, "--target", "vm", "--timeout", "240", "-c", "/bin/sleep 600"},
      text, "tick 2\n");
  ::close(out);
  const ExitStatus ended = wait_for(iotap_pid);
  EXPECT_EQ(ended.code, 141);
  EXPECT_FALSE(ended.signaled) << "iotap was killed by the signal (SIGPIPE), not stopped by it";
  EXPECT_EQ(guest_pid(), pid) << "the shared guest is gone after the run";

  const Captured after = diagnose("raid0(ram*2)");
  EXPECT_EQ(after.status.code, 0) << after.err;
  EXPECT_EQ(after.err.find("left by an iotap that is gone"), std::string::npos) << after.err;
  EXPECT_NE(after.err.find("running in the guest at " + dir_), std::string::npos) << after.err;
}

// A run whose iotap was killed outright (SIGKILL: a test's time limit once) left the guest inside
// it, reading the next run's request as that run's "stop" line: the next run waited 300 s for a
// start, then killed the guest, and the tests after it on that guest failed too (a CI run lost
// four so). The next run ends the old one and runs in the same guest.
TEST_F(SharedGuestTest, ARunWhoseIotapWasKilledIsEndedAndTheGuestTakesTheNext) {
  ASSERT_EQ(in_guest({"guest", "start", "--dir", dir_}).status.code, 0);
  const int pid = guest_pid();
  ASSERT_GT(pid, 0);
  std::string text;
  const auto [iotap_pid, out] =
      start_in_guest({"run", kUntilStopped, "--target", "vm", "-c", "/bin/sleep 600"}, text);
  ::kill(iotap_pid, SIGKILL);
  wait_for(iotap_pid);
  ::close(out);

  const Captured after = diagnose("raid0(ram*2)");
  EXPECT_EQ(after.status.code, 0) << after.err;
  EXPECT_NE(after.err.find("the guest at " + dir_ +
                           " was inside a run left by an iotap that is gone: ended it"),
            std::string::npos)
      << after.err;
  EXPECT_NE(after.err.find("running in the guest at " + dir_), std::string::npos) << after.err;
  EXPECT_EQ(device_names(after), (std::vector<std::string>{"md0", "ram0", "ram1"}));
  EXPECT_EQ(guest_pid(), pid) << "the guest was restarted: the old run did end when asked";
}

// The same, when the old run cannot end: its program waits in the kernel for a read of a
// suspended dm device (as on a disk that never answers). The next run says which task is held
// where, boots the guest anew, and runs in it.
TEST_F(SharedGuestTest, ARunHeldInTheKernelIsNamedAndTheGuestRestarted) {
  ASSERT_EQ(in_guest({"guest", "start", "--dir", dir_}).status.code, 0);
  const int pid = guest_pid();
  ASSERT_GT(pid, 0);
  std::string text;
  // "held" once dd waits in the kernel (state D), not before: a stop earlier would end it.
  const auto [iotap_pid, out] = start_in_guest(
      {"run", kUntilStopped, "--target", "vm", "--stack", "delay(ram, 1ms)", "-c",
       "/bin/sh -c 'dmsetup suspend __DEV__ && { dd if=__DEV__ of=/dev/null bs=4096 count=1 "
       "iflag=direct & until grep -q \"^State:.D\" /proc/$!/status; do :; done; echo held; "
       "wait; }'"},
      text, "held\n");
  ::kill(iotap_pid, SIGKILL);
  wait_for(iotap_pid);
  ::close(out);

  const Captured after = diagnose("raid0(ram*2)");
  EXPECT_EQ(after.status.code, 0) << after.err;
  EXPECT_NE(
      after.err.find("the guest at " + dir_ + " did not end a run left by an iotap that is gone ("),
      std::string::npos)
      << after.err;
  // Which task, where: the read waits for its bio in the block layer.
  EXPECT_TRUE(std::regex_search(after.err, std::regex("blocked [0-9]+ dd: [a-z_]"))) << after.err;
  EXPECT_NE(after.err.find("; restarting it"), std::string::npos) << after.err;
  EXPECT_NE(after.err.find("running in the guest at " + dir_), std::string::npos) << after.err;
  EXPECT_EQ(device_names(after), (std::vector<std::string>{"md0", "ram0", "ram1"}));
  const int restarted = guest_pid();
  EXPECT_GT(restarted, 0);
  EXPECT_NE(restarted, pid);
  EXPECT_FALSE(process_runs(pid)) << "the wedged guest's qemu still runs";
}

// issue 27: two starts at once both booted a qemu (half a second apart: stop then stopped one
// and removed the directory under the other) or both failed (at the same instant: each removed
// the other's files). One boots; the other says a guest is there, in one line.
TEST_F(SharedGuestTest, OfTwoStartsAtOnceOneBootsAndTheOtherSaysAGuestIsThere) {
  auto start = [this] { return in_guest({"guest", "start", "--dir", dir_}); };
  auto first = std::async(std::launch::async, start);
  auto second = std::async(std::launch::async, start);
  const Captured a = first.get();
  const Captured b = second.get();
  ASSERT_EQ((a.status.code == 0 ? 1 : 0) + (b.status.code == 0 ? 1 : 0), 1)
      << "first: " << a.status.code << "\n"
      << a.err << "\nsecond: " << b.status.code << "\n"
      << b.err;
  const Captured& lost = a.status.code == 0 ? b : a;
  EXPECT_EQ(lost.status.code, 2);
  // Which words depend on when the loser looked: while the winner booted, or after.
  const std::string head = "iotap: a guest already runs at " + dir_ + " (";
  const std::string tail = "); stop it first: iotap guest stop --dir " + dir_ + "\n";
  EXPECT_TRUE(lost.err == head + "it is starting, or a run is using it" + tail ||
              (lost.err.starts_with(head + "qemu pid ") && lost.err.ends_with(tail) &&
               std::count(lost.err.begin(), lost.err.end(), '\n') == 1))
      << lost.err;
  const int pid = guest_pid();
  ASSERT_GT(pid, 0);

  const Captured stop = in_guest({"guest", "stop", "--dir", dir_});
  EXPECT_EQ(stop.status.code, 0) << stop.err;
  EXPECT_FALSE(std::filesystem::exists(dir_)) << "guest stop left its directory";
  // No qemu of this directory's is left: neither the one stopped nor a second one.
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    const std::string words((std::istreambuf_iterator<char>(cmdline)), {});
    if (words.find(dir_ + "/ctl") == std::string::npos || !process_runs(std::stoi(name))) continue;
    ADD_FAILURE() << "a qemu of " << dir_ << " still runs: pid " << name;
  }
}

}  // namespace
}  // namespace iotap::test
