// --target ssh://, for real: each host is a qemu guest with its own md/dm stack and an ssh
// server (ssh_test_host.cpp), reached by iotap only through ssh on a port of 127.0.0.1. What a
// run reports is checked against the host's own kernel statistics (/sys/block/*/stat there,
// read by the agent before and after the run), and the host is checked for leftovers after.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"
#include "ssh_test_rig.h"

namespace iotap::test {
namespace {

class SshTargetTest : public ::testing::Test {
 protected:
  void SetUp() override { require_guest_tools(); }
  SshKeys keys_;
  TempDir tmp_{"iotap-ssh-tmp"};
};

TEST_F(SshTargetTest, OneHostItsOwnStackItsSlowMemberAndNothingLeftThere) {
  TestHost host(keys_, "raid0(ram*3, delay(ram, 20ms))");
  const Captured run =
      run_iotap({"diagnose", "--target", host.target(), "-c", kDelayedReads, "--json"}, tmp_.path(),
                {keys_.iotap_env()});
  ASSERT_EQ(run.status.code, 0) << run.err;
  expect_dm0_slow_as_the_kernel_counts_it(Json::parse(run.out));
  EXPECT_EQ(host.leftovers(), "");

  // -x: a block_hasher the host started on its own, attached to; the run ends when it does.
  const Captured started = host.ssh(std::string(IOTAP_BLOCK_HASHER) +
                                    " -d /dev/md0 -b 65536 -t 1 -n 1200 --direct </dev/null "
                                    ">/dev/null 2>&1 & echo $!");
  ASSERT_TRUE(started.status.ok()) << started.err;
  const std::string pid = started.out.substr(0, started.out.find('\n'));
  const Captured attached =
      run_iotap({"attribute", "--target", host.target(), "-x", pid, "--json", "--timeout", "300"},
                tmp_.path(), {keys_.iotap_env()});
  ASSERT_EQ(attached.status.code, 0) << attached.err;
  const Json attached_result = Json::parse(attached.out);
  EXPECT_EQ(attached_result["verdict"]["status"], "ok") << attached.err;
  EXPECT_GT(attached_result["requests"]["count"].get<int>(), 0);
  EXPECT_LE(attached_result["requests"]["count"].get<int>(), 1200);
  EXPECT_EQ(attached_result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(attached.err.find("timed out"), std::string::npos)
      << "the run should end with the process, not the timeout:\n"
      << attached.err;
  EXPECT_EQ(host.leftovers(), "");

  // Ctrl-C mid-run: the end probes still report from the host, and nothing stays there (the
  // program got the SIGINT too, as from a terminal).
  const TempDir report("iotap-ssh-report");
  LiveIotap stopped(
      {"diagnose", "--target", host.target(), "-c",
       "block_hasher -d /dev/md0 -b 65536 -t 1 --direct", "--json", "-o", report / "stopped.json"},
      {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  ASSERT_TRUE(stopped.wait_for_line("iotap: ", "] running ")) << stopped.err();
  // Stopped once the reads are under way: the host's own count of dm-0's reads says so.
  const auto reads_so_far = [&host] {
    const std::string stat = host.ssh("cat /sys/block/dm-0/stat").out;
    return stat.empty() ? 0L : std::stol(stat);
  };
  const long reads_before = reads_so_far();
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (reads_so_far() < reads_before + 20 && Clock::now() < deadline) {
  }
  stopped.signal(SIGINT);
  EXPECT_EQ(stopped.finish(), 130) << stopped.err();
  EXPECT_NE(stopped.err().find("stopping: the script's end probes run on " + host.name()),
            std::string::npos)
      << stopped.err();
  const Json stopped_result = Json::parse(read_file(report / "stopped.json"));
  EXPECT_GT(stopped_result["requests"]["count"].get<int>(), 0);
  EXPECT_EQ(host.leftovers(), "");
  EXPECT_EQ(host.ssh("pidof block_hasher; true").out, "");

  // iotap killed outright mid-run (its ssh dies with it): the agent sees the connection end and
  // stops staprun and the program itself, unloads the module and removes its directory.
  LiveIotap killed(
      {"diagnose", "--target", host.target(), "-c",
       "block_hasher -d /dev/md0 -b 65536 -t 1 --direct", "--json", "-o", report / "killed.json"},
      {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  ASSERT_TRUE(killed.wait_for_line("iotap: ", "] running ")) << killed.err();
  const long before_kill = reads_so_far();
  const auto kill_deadline = Clock::now() + std::chrono::seconds(120);
  while (reads_so_far() < before_kill + 20 && Clock::now() < kill_deadline) {
  }
  killed.signal(SIGKILL);
  EXPECT_EQ(killed.finish(), 128 + SIGKILL);
  std::string left = "(not looked at)";
  const auto clean_deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < clean_deadline) {
    left = host.leftovers() + host.ssh("pidof block_hasher staprun stapio; true").out;
    if (left.empty()) break;
  }
  EXPECT_EQ(left, "") << "what the agent left after the connection ended";
  // Here, only the run's own temp dir stays (a SIGKILL leaves it; the next iotap removes it).
  for (const auto& file : files_under(tmp_.path()))
    EXPECT_TRUE(file.starts_with("iotap-run.")) << file;
}

TEST_F(SshTargetTest, AFleetReportsEachHostTheSlowOneAndTheOneWithoutStaprun) {
  TestHost slow(keys_, "raid0(ram*3, delay(ram, 20ms))");
  TestHost healthy(keys_, "raid0(ram*4)");
  TestHost bare(keys_, "raid0(ram*2)", /*without_staprun=*/true);

  // One host without staprun, alone: one line, status 2, before anything is compiled.
  const Captured alone = run_iotap({"diagnose", "--target", bare.target(), "-c", kDelayedReads},
                                   tmp_.path(), {keys_.iotap_env()});
  EXPECT_EQ(alone.status.code, 2);
  EXPECT_NE(alone.err.find(bare.name() + " has no staprun"), std::string::npos) << alone.err;
  EXPECT_NE(alone.err.find("systemtap-runtime"), std::string::npos) << alone.err;

  // The doctor, asked about two of them: the one without staprun is not ready, and says why.
  const Captured doctor =
      run_iotap({"doctor", "--target", slow.target(), "--target", bare.target(), "--json"},
                tmp_.path(), {keys_.iotap_env()});
  EXPECT_EQ(doctor.status.code, 0) << "one host can trace: " << doctor.out;
  const Json checks = Json::parse(doctor.out);
  ASSERT_EQ(checks["targets"].size(), 2U) << doctor.out;
  EXPECT_TRUE(checks["targets"][0]["ready"].get<bool>()) << checks["targets"][0].dump(2);
  EXPECT_FALSE(checks["targets"][1]["ready"].get<bool>());
  EXPECT_NE(checks["targets"][1].dump().find("apt-get install systemtap-runtime on " + bare.name()),
            std::string::npos)
      << checks["targets"][1].dump(2);

  const Captured run =
      run_iotap({"diagnose", "--target", slow.target(), "--target", healthy.target(), "--target",
                 bare.target(), "-c", kDelayedReads, "--json"},
                tmp_.path(), {keys_.iotap_env()});
  EXPECT_EQ(run.status.code, 4) << "one host failed: " << run.err;
  const Json fleet = Json::parse(run.out);
  EXPECT_EQ(fleet["schema"], "iotap.fleet/1");
  ASSERT_EQ(fleet["hosts"].size(), 3U);
  const Json& first = fleet["hosts"][0];
  const Json& second = fleet["hosts"][1];
  const Json& third = fleet["hosts"][2];
  EXPECT_EQ(first["exit_status"], 0);
  EXPECT_EQ(first["result"]["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(second["exit_status"], 0);
  EXPECT_TRUE(second["result"]["verdict"]["slow_members"].empty()) << second.dump(2);
  EXPECT_EQ(second["result"]["requests"]["count"], 32);
  EXPECT_EQ(third["exit_status"], 2);
  EXPECT_NE(third["error"].get<std::string>().find("has no staprun"), std::string::npos);
  EXPECT_EQ(fleet["summary"]["with_slow_member"], Json::array({slow.target()}));
  EXPECT_EQ(fleet["summary"]["failed"], Json::array({bare.target()}));
  EXPECT_EQ(fleet["summary"]["lines"][1], "  1 of 2 hosts that ran has a slow member:");
  // Each host's status lines came through, named.
  EXPECT_NE(run.err.find("[" + healthy.name() + "] iotap: "), std::string::npos) << run.err;

  // The text report: each host's own, then the summary.
  const Captured text = run_iotap(
      {"diagnose", "--target", slow.target(), "--target", healthy.target(), "-c", kDelayedReads},
      tmp_.path(), {keys_.iotap_env()});
  EXPECT_EQ(text.status.code, 0) << text.err;
  EXPECT_NE(text.out.find("== " + slow.name() + " (exit status 0) =="), std::string::npos);
  EXPECT_NE(text.out.find("verdict: slow member dm-0"), std::string::npos) << text.out;
  EXPECT_NE(
      text.out.find("fleet: 2 hosts, 2 ran\n  1 of 2 hosts that ran has a slow member:\n    " +
                    slow.name() + ": dm-0 (delay) "),
      std::string::npos)
      << text.out;
  EXPECT_EQ(slow.leftovers(), "");
  EXPECT_EQ(healthy.leftovers(), "");
  EXPECT_EQ(files_under(tmp_.path()), std::vector<std::string>{});
}

// A fleet of three hosts on one kernel, with iotap's module cache empty: one of the three runs
// compiles the module and the other two wait for it and take it (they would each have compiled
// it, three stap runs at once on this machine's CPUs), and every host still reports its own.
TEST_F(SshTargetTest, AFleetOfThreeOnOneKernelCompilesOnce) {
  TestHost a(keys_, "raid0(ram*3, delay(ram, 20ms))");
  TestHost b(keys_, "raid0(ram*3, delay(ram, 20ms))");
  TestHost c(keys_, "raid0(ram*3, delay(ram, 20ms))");
  const TempDir cache("iotap-fleet-cache");
  const Captured run =
      run_iotap({"diagnose", "--target", a.target(), "--target", b.target(), "--target", c.target(),
                 "-c", kDelayedReads, "--json"},
                tmp_.path(), {keys_.iotap_env(), "IOTAP_MODULE_CACHE=" + cache.path()});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const Json fleet = Json::parse(run.out);
  ASSERT_EQ(fleet["hosts"].size(), 3U);
  for (const Json& host : fleet["hosts"]) {
    EXPECT_EQ(host["result"]["requests"]["count"], 32) << host.dump(2);
    ASSERT_EQ(host["result"]["verdict"]["slow_members"].size(), 1U) << host.dump(2);
    EXPECT_EQ(host["result"]["verdict"]["slow_members"][0]["name"], "dm-0");
  }
  const auto lines_with = [&run](const std::string& text) {
    int count = 0;
    for (size_t at = run.err.find(text); at != std::string::npos; at = run.err.find(text, at + 1))
      ++count;
    return count;
  };
  EXPECT_EQ(lines_with("] compiling "), 1) << run.err;
  EXPECT_EQ(lines_with("] compiled in "), 1) << run.err;
  EXPECT_EQ(lines_with(": module from cache"), 2) << run.err;
  for (const TestHost* host : {&a, &b, &c}) EXPECT_EQ(host->leftovers(), "");
}

TEST_F(SshTargetTest, AHostThatGoesAwayMidRunIsReportedAndTheOtherFinishes) {
  TestHost going(keys_, "raid0(ram*3, delay(ram, 20ms))");
  TestHost staying(keys_, "raid0(ram*4)");
  // Long on the delayed host (a quarter of 2000 reads wait 20 ms), short on the other.
  const std::string out = tmp_ / "fleet.json";
  LiveIotap iotap({"diagnose", "--target", going.target(), "--target", staying.target(), "-c",
                   "block_hasher -d /dev/md0 -b 65536 -t 1 -n 2000 --direct", "--json", "-o", out},
                  {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  // Once the module runs on the going host, it goes.
  ASSERT_TRUE(iotap.wait_for_line("[" + going.name() + "] iotap: ", "] running ")) << iotap.err();
  going.kill_now();
  EXPECT_EQ(iotap.finish(), 4) << iotap.err();
  const Json fleet = Json::parse(read_file(out));
  const Json& lost = fleet["hosts"][0];
  EXPECT_EQ(lost["exit_status"], 4) << lost.dump(2);
  EXPECT_NE(lost["error"].get<std::string>().find("the connection to " + going.name() +
                                                  " was lost while the module ran"),
            std::string::npos)
      << lost.dump(2);
  const Json& finished = fleet["hosts"][1];
  EXPECT_EQ(finished["exit_status"], 0) << iotap.err();
  EXPECT_EQ(finished["result"]["requests"]["count"], 2000);
  EXPECT_EQ(fleet["summary"]["failed"], Json::array({going.target()}));
  EXPECT_EQ(staying.leftovers(), "");
}

// Two iotap runs on one host at once (two users, one server): each loads a module of its own
// name there, and each reports its own program's reads. The first is attached to a block_hasher
// the host started (4 KiB reads of the whole array: minutes of work), so it stays loaded until the
// test ends that process; the second runs its own program from start to end meanwhile.
TEST_F(SshTargetTest, TwoRunsOnOneHostAtOnceEachLoadAModuleOfItsOwn) {
  TestHost host(keys_, "raid0(ram*3, delay(ram, 20ms))");
  const Captured started = host.ssh(std::string(IOTAP_BLOCK_HASHER) +
                                    " -d /dev/md0 -b 4096 -t 1 --direct </dev/null "
                                    ">/dev/null 2>&1 & echo $!");
  ASSERT_TRUE(started.status.ok()) << started.err;
  const std::string pid = started.out.substr(0, started.out.find('\n'));
  const std::string out = tmp_ / "first.json";
  LiveIotap first(
      {"attribute", "--target", host.target(), "-x", pid, "--json", "-o", out, "--timeout", "600"},
      {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  ASSERT_TRUE(first.wait_for_line("iotap: ", "] running")) << first.err();
  // Live: past its init, its probes on.
  const std::string live_modules = "awk '/^iotap/ && / Live / { print $1 }' /proc/modules";
  std::string first_module;
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (first_module.empty() && Clock::now() < deadline) first_module = host.ssh(live_modules).out;
  EXPECT_TRUE(first_module.starts_with("iotap_")) << first_module;
  EXPECT_EQ(std::count(first_module.begin(), first_module.end(), '\n'), 1) << first_module;

  const Captured second =
      run_iotap({"diagnose", "--target", host.target(), "-c", kDelayedReads, "--json"}, tmp_.path(),
                {keys_.iotap_env()});
  ASSERT_EQ(second.status.code, 0) << second.err;
  expect_its_own_reads_and_dm0_slow(Json::parse(second.out));

  // The first was loaded throughout, and is still.
  EXPECT_EQ(host.ssh(live_modules).out, first_module);
  ASSERT_TRUE(host.ssh("kill " + pid).status.ok());
  EXPECT_EQ(first.finish(), 0) << first.err();
  const Json first_result = Json::parse(read_file(out));
  EXPECT_EQ(first_result["verdict"]["status"], "ok") << first.err();
  EXPECT_GT(first_result["requests"]["count"].get<int>(), 0);
  EXPECT_EQ(first_result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(host.leftovers(), "");
}

// A run whose processes on the host are all killed at once (the OOM killer, a kill -9 of
// everything) leaves its module loaded, probes firing: the doctor names it, with the command that
// removes it, and that command does. While a run is attached, its module is in use, not left.
TEST_F(SshTargetTest, AModuleAKilledRunLeftIsNamedByTheDoctorWithTheCommandThatRemovesIt) {
  TestHost host(keys_, "raid0(ram*3, delay(ram, 20ms))");
  const auto doctor_says = [&] {
    const Captured doctor = run_iotap({"doctor", "--target", host.target(), "--json"}, tmp_.path(),
                                      {keys_.iotap_env()});
    EXPECT_EQ(doctor.status.code, 0) << doctor.err;
    const Json report = Json::parse(doctor.out);
    for (const Json& check : report["targets"][0]["checks"])
      if (check["name"] == "iotap modules there") return check;
    ADD_FAILURE() << "no 'iotap modules there' check: " << doctor.out;
    return Json();
  };
  EXPECT_EQ(doctor_says()["found"], "none loaded");

  const Captured started = host.ssh(std::string(IOTAP_BLOCK_HASHER) +
                                    " -d /dev/md0 -b 4096 -t 1 --direct </dev/null "
                                    ">/dev/null 2>&1 & echo $!");
  ASSERT_TRUE(started.status.ok()) << started.err;
  const std::string pid = started.out.substr(0, started.out.find('\n'));
  LiveIotap run({"attribute", "--target", host.target(), "-x", pid, "--json", "-o",
                 tmp_ / "run.json", "--timeout", "600"},
                {keys_.iotap_env(), "TMPDIR=" + tmp_.path()});
  ASSERT_TRUE(run.wait_for_line("iotap: ", "] running")) << run.err();
  std::string module;
  const auto live_deadline = Clock::now() + std::chrono::seconds(120);
  while (module.empty() && Clock::now() < live_deadline)
    module = host.ssh("awk '/^iotap_/ && / Live / { print $1 }' /proc/modules").out;
  ASSERT_FALSE(module.empty());
  module.pop_back();  // its newline
  EXPECT_EQ(doctor_says()["found"], "1 in use by runs now (" + module + ")");

  // The agent's shells (their command lines hold "iotap-agent"; the pattern's brackets keep this
  // shell's own from matching) and stapio, killed in one kill: no trap runs.
  ASSERT_TRUE(host.ssh("agents=$(for f in /proc/[0-9]*/cmdline; do "
                       "grep -q 'iotap-agen[t]' \"$f\" 2>/dev/null && "
                       "{ d=${f%/cmdline}; echo ${d#/proc/}; }; done); "
                       "kill -KILL $agents $(pidof stapio staprun)")
                  .status.ok());
  EXPECT_NE(run.finish(), 0) << "its connection ended mid-run";

  Json left;
  const auto left_deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < left_deadline) {
    left = doctor_says();
    if (left["status"] == "note") break;
  }
  EXPECT_EQ(left["status"], "note") << left.dump(2);
  EXPECT_TRUE(left["found"].get<std::string>().starts_with(module + " loaded with no run attached"))
      << left.dump(2);
  EXPECT_EQ(left["fix"], "rmmod " + module + " as root on " + host.name());
  EXPECT_EQ(host.ssh("grep -c '^" + module + " ' /proc/modules").out, "1\n");

  // The fix, as given.
  const Captured removed = host.ssh("rmmod " + module);
  EXPECT_TRUE(removed.status.ok()) << removed.err;
  EXPECT_EQ(host.ssh("grep '^iotap' /proc/modules; true").out, "");
  EXPECT_EQ(doctor_says()["found"], "none loaded");
  ASSERT_TRUE(host.ssh("kill " + pid).status.ok());
}

}  // namespace
}  // namespace iotap::test
