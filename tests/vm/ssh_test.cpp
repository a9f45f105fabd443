// --target ssh://, for real: each host is a qemu guest with its own md/dm stack and an ssh
// server (ssh_test_host.cpp), reached by iotap only through ssh on a port of 127.0.0.1. What a
// run reports is checked against the host's own kernel statistics (/sys/block/*/stat there,
// read by the agent before and after the run), and the host is checked for leftovers after.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"

namespace iotap::test {
namespace {

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
  TestHost(const SshKeys& keys, const std::string& stack, bool without_staprun = false)
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
        ssh("ls -d /tmp/iotap-ssh.* 2>/dev/null; grep '^iotap ' /proc/modules; "
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

const Json* device_named(const Json& result, const std::string& name) {
  for (const auto& device : result["devices"]) {
    if (device["name"] == name) return &device;
  }
  return nullptr;
}

class SshTargetTest : public ::testing::Test {
 protected:
  void SetUp() override { require_guest_tools(); }
  SshKeys keys_;
  TempDir tmp_{"iotap-ssh-tmp"};
};

// The reads block_hasher makes on the hosts: 1 MiB each, four threads; on raid0(ram*3,
// delay(ram, 20ms)) each touches the delayed member once.
const std::string kReads = "block_hasher -d /dev/md0 -b 1048576 -t 4 -n 32 --direct";

TEST_F(SshTargetTest, OneHostItsOwnStackItsSlowMemberAndNothingLeftThere) {
  TestHost host(keys_, "raid0(ram*3, delay(ram, 20ms))");
  const Captured run = run_iotap({"diagnose", "--target", host.target(), "-c", kReads, "--json"},
                                 tmp_.path(), {keys_.iotap_env()});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const Json result = Json::parse(run.out);
  // The stack iotap read from the host's sysfs over ssh: md0 over dm-0 and three ram disks.
  const Json* md0 = device_named(result, "md0");
  const Json* dm0 = device_named(result, "dm-0");
  ASSERT_NE(md0, nullptr) << run.out;
  ASSERT_NE(dm0, nullptr) << run.out;
  EXPECT_EQ((*dm0)["parent"], "md0");
  EXPECT_EQ((*dm0)["spec"], "delay");
  EXPECT_EQ((*md0)["spec"], "raid0");
  ASSERT_EQ(result["verdict"]["slow_members"].size(), 1U) << result["verdict"].dump(2);
  EXPECT_EQ(result["verdict"]["slow_members"][0]["name"], "dm-0");
  EXPECT_EQ(result["requests"]["count"], 32);
  EXPECT_EQ(result["remap_check"]["mismatches"], 0);
  // Against the host kernel's own count and time for dm-0 over the run (its diskstats, read
  // there before and after): the same reads, and a mean within a jiffy (4 ms at HZ=250) of
  // iotap's.
  const Json& kernel = (*dm0)["kernel_stats"];
  ASSERT_TRUE(kernel.is_object()) << dm0->dump(2);
  EXPECT_EQ(kernel["reads"], (*dm0)["ios"]);
  EXPECT_NEAR(kernel["read_mean_us"].get<double>(), (*dm0)["latency_us"]["mean"].get<double>(),
              4000);
  EXPECT_GE((*dm0)["latency_us"]["mean"].get<double>(), 20'000);
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
  const Captured alone = run_iotap({"diagnose", "--target", bare.target(), "-c", kReads},
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
                 bare.target(), "-c", kReads, "--json"},
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
  const Captured text =
      run_iotap({"diagnose", "--target", slow.target(), "--target", healthy.target(), "-c", kReads},
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

}  // namespace
}  // namespace iotap::test
