#pragma once
// The rig of the --target ssh:// tests and of --target local run inside a guest: hosts on this
// machine, each a qemu guest with its own md/dm stack and an ssh server (ssh_test_host.cpp),
// reached only through ssh on a port of 127.0.0.1, with a key of the tests' own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap::test {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// What the tests' ssh needs: a key of their own, and no known_hosts (each boot makes new host
// keys). iotap gets the same through IOTAP_SSH_CONFIG.
class SshKeys {
 public:
  SshKeys() : dir_("iotap-ssh-test") {
    const Captured made =
        capture({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_ / "key"});
    if (!made.status.ok()) throw std::runtime_error("ssh-keygen failed: " + made.err);
    write_file(dir_ / "config", "Host *\n  User root\n  IdentityFile " + (dir_ / "key") +
                                    "\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n"
                                    "  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n");
  }
  [[nodiscard]] std::string public_key() const { return dir_ / "key.pub"; }
  [[nodiscard]] std::string config() const { return dir_ / "config"; }
  [[nodiscard]] std::string iotap_env() const { return "IOTAP_SSH_CONFIG=" + config(); }

 private:
  TempDir dir_;
};

// One host: ssh_test_host, from its start until its "ready PORT" (the ssh server answers), and
// stopped (the guest powers off) when the test is done with it.
class TestHost {
 public:
  // `more`: ssh_test_host's --program and --file words (what else of this machine the guest
  // holds).
  TestHost(const SshKeys& keys, const std::string& stack, bool without_staprun = false,
           const std::vector<std::string>& more = {})
      : keys_(keys), log_("iotap-ssh-host") {
    std::array<int, 2> out{};
    if (::pipe2(out.data(), O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    const int err = ::open((log_ / "stderr").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    SpawnOptions options;
    options.stdout_fd = out[1];
    options.stderr_fd = err;
    options.die_with_parent = true;
    std::vector<std::string> argv{SSH_TEST_HOST, "--stack", stack, "--key", keys.public_key()};
    if (without_staprun) argv.emplace_back("--without-staprun");
    argv.insert(argv.end(), more.begin(), more.end());
    pid_ = spawn(argv, options);
    ::close(out[1]);
    ::close(err);
    out_ = out[0];
    // Booting, the stack, the network and dropbear's host keys: well under a minute under TCG.
    const auto deadline = Clock::now() + std::chrono::seconds(300);
    std::string said;
    while (said.find('\n') == std::string::npos && Clock::now() < deadline) {
      pollfd fd{out_, POLLIN, 0};
      if (::poll(&fd, 1, 1000) <= 0) continue;
      std::array<char, 256> buffer{};
      const ssize_t n = ::read(out_, buffer.data(), buffer.size());
      if (n <= 0) break;
      said.append(buffer.data(), static_cast<size_t>(n));
    }
    if (!said.starts_with("ready "))
      throw std::runtime_error("the ssh test host did not come up; its log:\n" + log());
    port_ = std::stoi(said.substr(6));
  }
  ~TestHost() { stop(); }
  TestHost(const TestHost&) = delete;
  TestHost& operator=(const TestHost&) = delete;
  TestHost(TestHost&&) = delete;
  TestHost& operator=(TestHost&&) = delete;

  [[nodiscard]] std::string target() const {
    return "ssh://root@127.0.0.1:" + std::to_string(port_);
  }
  [[nodiscard]] std::string name() const { return target().substr(6); }
  [[nodiscard]] std::string log() const { return read_file(log_ / "stderr"); }

  // `command` run there by sh, through the tests' own ssh.
  [[nodiscard]] Captured ssh(const std::string& command) const {
    return capture(
        {"ssh", "-F", keys_.config(), "-p", std::to_string(port_), "127.0.0.1", command});
  }

  // What iotap could have left there: its run directories and its module.
  [[nodiscard]] std::string leftovers() const {
    const Captured seen =
        ssh("ls -d /tmp/iotap-ssh.* 2>/dev/null; grep '^iotap' /proc/modules; "
            "ls /sys/module | grep '^iotap'; true");
    EXPECT_TRUE(seen.status.ok()) << seen.err;
    return seen.out;
  }

  // Gone at once, as a host that loses power: qemu dies with the helper.
  void kill_now() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait_for(pid_);
      pid_ = -1;
    }
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      wait_for(pid_);
      pid_ = -1;
    }
    if (out_ >= 0) ::close(out_);
    out_ = -1;
  }

 private:
  const SshKeys& keys_;
  TempDir log_;
  pid_t pid_ = -1;
  int out_ = -1;
  int port_ = 0;
};

// An iotap run whose stderr is read as it comes: to act at a moment of the run (the module
// running on a host), then to wait for its end.
class LiveIotap {
 public:
  LiveIotap(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    std::array<int, 2> err{};
    if (::pipe2(err.data(), O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    SpawnOptions options;
    options.stderr_fd = err[1];
    options.extra_env = env;
    std::vector<std::string> argv{IOTAP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = spawn(argv, options);
    ::close(err[1]);
    err_ = err[0];
  }
  ~LiveIotap() {
    if (err_ >= 0) ::close(err_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait_for(pid_);
    }
  }
  LiveIotap(const LiveIotap&) = delete;
  LiveIotap& operator=(const LiveIotap&) = delete;
  LiveIotap(LiveIotap&&) = delete;
  LiveIotap& operator=(LiveIotap&&) = delete;

  // Reads stderr until a line starts with `prefix` and holds `word`; false when it ended first.
  bool wait_for_line(const std::string& prefix, const std::string& word) {
    bool seen = false;
    while (!seen) {
      std::array<char, 4096> buffer{};
      const ssize_t n = ::read(err_, buffer.data(), buffer.size());
      if (n <= 0) return false;
      lines_.feed(std::string_view(buffer.data(), static_cast<size_t>(n)),
                  [&](std::string_view line) {
                    stderr_ += std::string(line) + "\n";
                    if (line.starts_with(prefix) && line.find(word) != std::string_view::npos)
                      seen = true;
                  });
    }
    return true;
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  // The rest of stderr, and the exit status.
  int finish() {
    std::array<char, 4096> buffer{};
    for (ssize_t n = 1; n > 0;) {
      n = ::read(err_, buffer.data(), buffer.size());
      if (n > 0) stderr_.append(buffer.data(), static_cast<size_t>(n));
    }
    const int code = wait_for(pid_).code;
    pid_ = -1;
    return code;
  }
  [[nodiscard]] const std::string& err() const { return stderr_; }

 private:
  pid_t pid_ = -1;
  int err_ = -1;
  LineSplitter lines_;
  std::string stderr_;
};

inline const Json* device_named(const Json& result, const std::string& name) {
  for (const auto& device : result["devices"]) {
    if (device["name"] == name) return &device;
  }
  return nullptr;
}

// The reads block_hasher makes on the hosts: 1 MiB each, four threads; on raid0(ram*3,
// delay(ram, 20ms)) each touches the delayed member once.
// PostgreSQL's own count over an attached run (its counters read before the module loaded and
// after it went, every database summed: the "postgres" object) against iotap's: every block the
// server read from the kernel is one smgr read iotap saw (but for probe hits stap skipped).
inline void expect_postgres_counted_what_iotap_saw(const Json& result) {
  const Json& postgres = result["postgres"];
  ASSERT_TRUE(postgres.is_object()) << "no \"postgres\" in the JSON";
  EXPECT_TRUE(postgres["database_oid"].is_null()) << "the whole server's: " << postgres.dump();
  uint64_t smgr_reads = 0;
  for (const auto& level : result["levels"])
    if (level["name"] == "smgr_read") smgr_reads = level["count"];
  const uint64_t counted =
      postgres["blks_read"].get<uint64_t>() + postgres["shared"]["blks_read"].get<uint64_t>();
  const uint64_t skipped = result["loss"]["skipped_probes"];
  EXPECT_LE(smgr_reads, counted) << postgres.dump();
  EXPECT_GE(smgr_reads + skipped, counted) << postgres.dump();
  EXPECT_GT(smgr_reads, 0U);
  std::cout << "postgres counted " << postgres["blks_read"] << " + shared "
            << postgres["shared"]["blks_read"] << " blocks read, iotap " << smgr_reads
            << " smgr reads\n";
}

inline const std::string kDelayedReads = "block_hasher -d /dev/md0 -b 1048576 -t 4 -n 32 --direct";

// A diagnose --json of kDelayedReads run beside another iotap run on the same host: its own
// program's 32 reads and no more, dm-0 named slow, every remap where md's layout puts it (the
// kernel's counts would hold the other run's reads too, so they are not compared).
inline void expect_its_own_reads_and_dm0_slow(const Json& result) {
  EXPECT_EQ(result["requests"]["count"], 32) << "its own program's reads, no more";
  ASSERT_EQ(result["verdict"]["slow_members"].size(), 1U) << result["verdict"].dump(2);
  EXPECT_EQ(result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(result["remap_check"]["mismatches"], 0);
}

// A diagnose --json of kDelayedReads on raid0(ram*3, delay(ram, 20ms)): the stack read from the
// host's sysfs (md0 over dm-0 and three ram disks), dm-0 named slow, and the host kernel's own
// count and time for dm-0 over the run (its diskstats before and after) agreeing with iotap's:
// the same reads, a mean within a jiffy (4 ms at HZ=250), and at least the 20 ms delay.
inline void expect_dm0_slow_as_the_kernel_counts_it(const Json& result) {
  const Json* md0 = device_named(result, "md0");
  const Json* dm0 = device_named(result, "dm-0");
  ASSERT_NE(md0, nullptr) << result.dump(2);
  ASSERT_NE(dm0, nullptr) << result.dump(2);
  EXPECT_EQ((*dm0)["parent"], "md0");
  EXPECT_EQ((*dm0)["spec"], "delay");
  EXPECT_EQ((*md0)["spec"], "raid0");
  ASSERT_EQ(result["verdict"]["slow_members"].size(), 1U) << result["verdict"].dump(2);
  EXPECT_EQ(result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(result["requests"]["count"], 32);
  EXPECT_EQ(result["remap_check"]["mismatches"], 0);
  const Json& kernel = (*dm0)["kernel_stats"];
  ASSERT_TRUE(kernel.is_object()) << dm0->dump(2);
  EXPECT_EQ(kernel["reads"], (*dm0)["ios"]);
  EXPECT_NEAR(kernel["read_mean_us"].get<double>(), (*dm0)["latency_us"]["mean"].get<double>(),
              4000);
  // dm-delay releases a bio once jiffies reach its expiry, set in whole jiffies from when it
  // came: a 20 ms delay is 16-20 ms plus the release's own latency. 6.1's timer and workqueue
  // added more than the jiffy back; 6.12's worker thread (6.9, for delays under 50 ms) polls, and
  // a mean of 19.2 ms was measured. The floor is one jiffy (4 ms at both kernels' HZ=250) under.
  EXPECT_GE((*dm0)["latency_us"]["mean"].get<double>(), 20'000 - 4'000);
}

}  // namespace iotap::test
