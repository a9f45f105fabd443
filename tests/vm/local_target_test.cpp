// --target local, for real: iotap installed in a host (an ssh test host, ssh_test_host.cpp, with
// iotap's install tree in it as `cmake --install --strip` makes it), run there against that
// host's own kernel with a module this machine compiled for it (--save-module --for-kernel) and
// carried over, as on a server that has staprun but no compiler. The host has no stap and no
// kernel headers. What the run reports is checked against the host kernel's own statistics, and
// the host is checked for leftovers after each run.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"
#include "ssh_test_rig.h"

namespace iotap::test {
namespace {

// The kernel the host boots: the build's guest kernel, or the one this registration of the test
// names (IOTAP_GUEST_KERNEL, a full release: the vm tier's second-kernel cases).
std::string host_kernel() {
  const char* named = std::getenv("IOTAP_GUEST_KERNEL");
  return named != nullptr && *named != '\0' ? named : GUEST_KERNEL;
}

class LocalTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    require_guest_tools();
    const Captured installed =
        capture({CMAKE_COMMAND_PATH, "--install", BUILD_DIR, "--prefix", prefix_, "--strip"});
    ASSERT_TRUE(installed.status.ok()) << installed.err;
  }
  // What a run could have left on the host: its work directory, its module.
  static std::string leftovers(const TestHost& host) {
    const Captured seen = host.ssh(
        "ls -d /tmp/iotap-run.* 2>/dev/null; grep '^iotap' /proc/modules; "
        "ls /sys/module | grep '^iotap'; pidof staprun stapio block_hasher; true");
    EXPECT_TRUE(seen.status.ok()) << seen.err;
    return seen.out;
  }
  // Polls the host until `command` prints something (true) or `seconds` pass (false).
  static bool wait_there(const TestHost& host, const std::string& command, int seconds) {
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < deadline) {
      if (!host.ssh(command + " 2>/dev/null; true").out.empty()) return true;
    }
    return false;
  }
  // Starts `iotap ARGS --json -o /tmp/NAME.json` on the host in the background, its stderr in
  // /tmp/NAME.err and its exit status in /tmp/NAME.status once it ends, and waits until it runs.
  void start_there(const TestHost& host, const std::string& args, const std::string& name) const {
    const std::string files = "/tmp/" + name;
    ASSERT_TRUE(host.ssh("(" + iotap_ + " " + args + " --json -o " + files + ".json 2>" + files +
                         ".err; echo $? >" + files + ".status) </dev/null >/dev/null 2>&1 &")
                    .status.ok());
    ASSERT_TRUE(wait_there(host, "grep '] running' " + files + ".err", 120))
        << host.ssh("cat " + files + ".err").out;
  }
  // dm-0's reads so far, by the host kernel's own count.
  static long dm0_reads(const TestHost& host) {
    const std::string stat = host.ssh("cat /sys/block/dm-0/stat").out;
    return stat.empty() ? 0L : std::stol(stat);
  }

  TempDir dir_{"iotap-local-test"};
  std::string prefix_ = dir_ / "prefix";
  std::string iotap_ = prefix_ + "/bin/iotap";
  std::string module_ = dir_ / "diagnose.ko";
};

TEST_F(LocalTargetTest, AModuleSavedHereRunsInAHostOnItsOwnKernelAndLeavesNothingThere) {
  // Compiled here for the host's kernel, and nothing run.
  const std::string kernel = host_kernel();
  const Captured saved = capture(
      {iotap_, "diagnose", "--save-module", module_, "--for-kernel", kernel, "-c", kDelayedReads});
  ASSERT_EQ(saved.status.code, 0) << saved.err;
  EXPECT_NE(saved.err.find("module for kernel " + kernel + " saved to " + module_),
            std::string::npos)
      << saved.err;
  EXPECT_EQ(saved.out, "");

  const SshKeys keys;
  const TestHost host(
      keys, "raid0(ram*3, delay(ram, 20ms))", /*without_staprun=*/false,
      {"--program", iotap_, "--program", prefix_ + "/libexec/iotap/block_hasher/block_hasher",
       "--program", prefix_ + "/libexec/iotap/io_replayer/io_replayer", "--file", prefix_, "--file",
       module_});
  ASSERT_EQ(host.ssh("command -v stap; ls /lib/modules/*/build 2>/dev/null; true").out, "")
      << "the host should have no compiler side of SystemTap";

  // -c: the stack read from the host's own sysfs, its slow member named, and the kernel's own
  // count and time for dm-0 over the run (its diskstats before and after) agreeing with iotap's.
  const Captured run = host.ssh(iotap_ + " diagnose --target local --module " + module_ + " -c '" +
                                kDelayedReads + "' --json");
  ASSERT_EQ(run.status.code, 0) << run.err;
  expect_dm0_slow_as_the_kernel_counts_it(Json::parse(run.out));
  EXPECT_NE(run.err.find("diagnose.ko: saved module for kernel " + kernel), std::string::npos)
      << run.err;
  EXPECT_EQ(leftovers(host), "");

  // Another verb's script: refused before anything is loaded.
  const Captured other = host.ssh(iotap_ + " latency --target local --module " + module_ + " -c '" +
                                  kDelayedReads + "'");
  EXPECT_EQ(other.status.code, 2);
  EXPECT_NE(other.err.find(module_ + " was saved for another script or options than this run's"),
            std::string::npos)
      << other.err;

  // -x: a block_hasher the host started itself (the module was saved with -c of the same
  // program); the run ends when the process does.
  const Captured started = host.ssh(prefix_ +
                                    "/libexec/iotap/block_hasher/block_hasher -d /dev/md0 -b 65536 "
                                    "-t 1 -n 1200 --direct </dev/null >/dev/null 2>&1 & echo $!");
  ASSERT_TRUE(started.status.ok()) << started.err;
  const std::string pid = started.out.substr(0, started.out.find('\n'));
  const Captured attached = host.ssh(iotap_ + " diagnose --target local --module " + module_ +
                                     " -x " + pid + " --json --timeout 300");
  ASSERT_EQ(attached.status.code, 0) << attached.err;
  const Json attached_result = Json::parse(attached.out);
  EXPECT_GT(attached_result["requests"]["count"].get<int>(), 0);
  EXPECT_LE(attached_result["requests"]["count"].get<int>(), 1200);
  ASSERT_EQ(attached_result["verdict"]["slow_members"].size(), 1U) << attached.out;
  EXPECT_EQ(attached_result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(attached.err.find("timed out"), std::string::npos)
      << "the run should end with the process, not the timeout:\n"
      << attached.err;
  EXPECT_EQ(leftovers(host), "");

  // --timeout: the run stops as Ctrl-C would, and says it was the timeout (the recording's end
  // line). record runs diagnose's script, so the same saved module serves.
  const Captured cut =
      host.ssh(iotap_ + " record -o /tmp/cut.rec --timeout 5 --target local --module " + module_ +
               " -c 'block_hasher -d /dev/md0 -b 65536 -t 1 --direct'");
  EXPECT_EQ(host.ssh("tail -1 /tmp/cut.rec | grep -o '\"timed_out\":true'").out,
            "\"timed_out\":true\n")
      << cut.err;
  EXPECT_NE(host.ssh("sed -n 3p /tmp/cut.rec").out, "") << "no request recorded:\n" << cut.err;
  EXPECT_EQ(leftovers(host), "");

  // SIGINT to iotap alone (as a script or a service manager sends it, no terminal): the end
  // probes report, the program goes too, and nothing stays.
  ASSERT_NO_FATAL_FAILURE(start_there(host,
                                      "diagnose --target local --module " + module_ +
                                          " -c 'block_hasher -d /dev/md0 -b 65536 -t 1 --direct'",
                                      "stopped"));
  const long reads_before = dm0_reads(host);
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (dm0_reads(host) < reads_before + 20 && Clock::now() < deadline) {
  }
  ASSERT_TRUE(host.ssh("kill -INT $(pidof iotap)").status.ok());
  ASSERT_TRUE(wait_there(host, "cat /tmp/stopped.status", 60))
      << "iotap did not end after SIGINT:\n"
      << host.ssh("cat /tmp/stopped.err; ps").out;
  EXPECT_EQ(host.ssh("cat /tmp/stopped.status").out, "130\n")
      << host.ssh("cat /tmp/stopped.err").out;
  const Json stopped = Json::parse(host.ssh("cat /tmp/stopped.json").out);
  EXPECT_GT(stopped["requests"]["count"].get<int>(), 0);
  EXPECT_EQ(leftovers(host), "");
}

// Attaching on the machine iotap runs on (--target local, neither -c nor -x): a PostgreSQL server
// that was running before iotap (ssh_test_host --postgres starts it), a module saved here for the
// provider's probes, and three connections made while it runs, each a backend forked after the
// module loaded. The server's own counters, read before and after, count what iotap saw.
TEST_F(LocalTargetTest, AServerRunningThereIsAttachedToWithAModuleSavedHere) {
  const Captured saved = capture({iotap_, "diagnose", "--save-module", module_, "--for-kernel",
                                  host_kernel(), "--requests", "usdt:postgresql"});
  ASSERT_EQ(saved.status.code, 0) << saved.err;

  const SshKeys keys;
  const TestHost host(
      keys, "raid0(ram*2, delay(ram, 20ms))", /*without_staprun=*/false,
      {"--postgres", "20000", "--program", iotap_, "--file", prefix_, "--file", module_});
  ASSERT_FALSE(host.ssh("head -n 1 /pg/data/postmaster.pid").out.empty()) << host.log();
  ASSERT_NO_FATAL_FAILURE(start_there(
      host, "diagnose --target local --module " + module_ + " --requests usdt:postgresql",
      "attached"));
  ASSERT_TRUE(wait_there(host, "grep '^iotap[^ ]* .* Live ' /proc/modules", 120))
      << host.ssh("cat /tmp/attached.err").out;
  const Captured load = host.ssh(
      "for i in 1 2 3; do /iotap/as-postgres psql -X -q -A -t -c 'SELECT count(*) FROM "
      "iotap_data' || exit; done");
  ASSERT_TRUE(load.status.ok()) << load.err;
  EXPECT_EQ(load.out, "20000\n20000\n20000\n");
  ASSERT_TRUE(host.ssh("kill -INT $(pidof iotap)").status.ok());
  ASSERT_TRUE(wait_there(host, "cat /tmp/attached.status", 120))
      << host.ssh("cat /tmp/attached.err").out;
  const std::string err = host.ssh("cat /tmp/attached.err").out;
  EXPECT_EQ(host.ssh("cat /tmp/attached.status").out, "130\n") << err;
  EXPECT_NE(err.find("attached to every process running /usr/lib/postgresql/15/bin/postgres"),
            std::string::npos)
      << err;
  const Json result = Json::parse(host.ssh("cat /tmp/attached.json").out);
  int queries = 0;
  for (const auto& level : result["levels"])
    if (level["name"] == "query") queries = level["count"];
  EXPECT_EQ(queries, 3) << err;
  ASSERT_EQ(result["verdict"]["slow_members"].size(), 1U) << result["verdict"].dump(2);
  EXPECT_EQ(result["verdict"]["slow_members"][0]["name"], "dm-0");
  expect_postgres_counted_what_iotap_saw(result);
  EXPECT_EQ(leftovers(host), "");
}

// Two users tracing one server at once (--target local twice, one module file): each run loads
// a module of its own name, neither refuses the other, and each reports its own program's reads.
// The first is attached to a block_hasher the host started, so it stays loaded until the test
// ends that process, and the second runs its own from start to end meanwhile.
TEST_F(LocalTargetTest, TwoRunsAtOnceEachLoadAModuleOfItsOwnAndBothFinishRight) {
  const Captured saved = capture({iotap_, "diagnose", "--save-module", module_, "--for-kernel",
                                  host_kernel(), "-c", kDelayedReads});
  ASSERT_EQ(saved.status.code, 0) << saved.err;
  const SshKeys keys;
  const TestHost host(
      keys, "raid0(ram*3, delay(ram, 20ms))", /*without_staprun=*/false,
      {"--program", iotap_, "--program", prefix_ + "/libexec/iotap/block_hasher/block_hasher",
       "--file", prefix_, "--file", module_});
  const Captured started = host.ssh(prefix_ +
                                    "/libexec/iotap/block_hasher/block_hasher -d /dev/md0 -b 4096 "
                                    "-t 1 --direct </dev/null >/dev/null 2>&1 & echo $!");
  ASSERT_TRUE(started.status.ok()) << started.err;
  const std::string pid = started.out.substr(0, started.out.find('\n'));
  ASSERT_NO_FATAL_FAILURE(start_there(
      host, "diagnose --target local --module " + module_ + " -x " + pid + " --timeout 600",
      "first"));
  const std::string live_modules = "awk '/^iotap/ && / Live / { print $1 }' /proc/modules";
  ASSERT_TRUE(wait_there(host, live_modules, 120)) << host.ssh("cat /tmp/first.err").out;
  const std::string first_module = host.ssh(live_modules).out;
  EXPECT_TRUE(first_module.starts_with("iotap_")) << first_module;
  EXPECT_EQ(std::count(first_module.begin(), first_module.end(), '\n'), 1) << first_module;

  const Captured second = host.ssh(iotap_ + " diagnose --target local --module " + module_ +
                                   " -c '" + kDelayedReads + "' --json");
  ASSERT_EQ(second.status.code, 0) << second.err;
  expect_its_own_reads_and_dm0_slow(Json::parse(second.out));

  // The first was loaded throughout, and is still: the same module, its run not over.
  EXPECT_EQ(host.ssh(live_modules).out, first_module);
  EXPECT_EQ(host.ssh("cat /tmp/first.status 2>/dev/null; true").out, "");
  ASSERT_TRUE(host.ssh("kill " + pid).status.ok());
  ASSERT_TRUE(wait_there(host, "cat /tmp/first.status", 120)) << host.ssh("cat /tmp/first.err").out;
  const std::string first_err = host.ssh("cat /tmp/first.err").out;
  EXPECT_EQ(host.ssh("cat /tmp/first.status").out, "0\n") << first_err;
  const Json first_result = Json::parse(host.ssh("cat /tmp/first.json").out);
  EXPECT_GT(first_result["requests"]["count"].get<int>(), 0) << first_err;
  ASSERT_EQ(first_result["verdict"]["slow_members"].size(), 1U) << first_result["verdict"].dump(2);
  EXPECT_EQ(first_result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(leftovers(host), "");
}

}  // namespace
}  // namespace iotap::test
