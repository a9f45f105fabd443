// Temp dirs left by iotap runs that were killed outright are removed by the next run; those of
// runs still going, and everything else, stay.
#include "iotap/util/leftovers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

namespace fs = std::filesystem;

// A pid that is known to be dead: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// A live process named iotap, as a concurrent run would be; it exits when hold[1] is closed.
pid_t live_iotap(const int (&hold)[2]) {
  const int hold_read_end = hold[0];
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(hold[1]);
    ::prctl(PR_SET_NAME, "iotap");
    char byte = 0;
    [[maybe_unused]] const ssize_t n = ::read(hold_read_end, &byte, 1);
    ::_exit(0);
  }
  return pid;
}

// `iotap probes /bin/true` (any verb removes leftovers first) with TMPDIR at `tmpdir`.
Captured run_iotap(const std::string& tmpdir) {
  SpawnOptions options;
  options.extra_env = {"TMPDIR=" + tmpdir};
  return capture({IOTAP_BINARY, "probes", "/bin/true"}, options);
}

std::string make_dir(const std::string& path, size_t payload = 0) {
  fs::create_directory(path);
  if (payload > 0) std::ofstream(path + "/initrd.cpio") << std::string(payload, 'x');
  return path;
}

TEST(Leftovers, OnlyDeadRunsDirsAreRemovedAndTheRunSaysSo) {
  const TempDir tmp("iotap-leftovers-test");
  const pid_t dead = dead_pid();
  const std::string dead_run =
      make_dir(tmp / ("iotap-run." + std::to_string(dead) + ".a1b2c3"), 1'000'000);
  const std::string dead_vm =
      make_dir(tmp / ("iotap-vm." + std::to_string(dead) + ".d4e5f6"), 1'000'000);

  int hold[2];
  ASSERT_EQ(::pipe2(hold, O_CLOEXEC), 0);
  const pid_t running = live_iotap(hold);
  const std::string live_run = make_dir(tmp / ("iotap-vm." + std::to_string(running) + ".g7h8i9"));
  // Its pid is this test (not a process named iotap), but its lock is held: a run in another
  // pid namespace, where the pid in the name means nothing.
  const std::string locked =
      make_dir(tmp / ("iotap-run." + std::to_string(::getpid()) + ".j1k2l3"));
  const int lock = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  // Not iotap's names: never touched.
  const std::string other_tool = make_dir(tmp / ("iotap-vm-test." + std::to_string(dead) + ".x"));
  const std::string no_suffix = make_dir(tmp / ("iotap-run." + std::to_string(dead)));

  Captured run = run_iotap(tmp.path());

  EXPECT_NE(run.err.find("iotap: removed 2 leftover temp dirs of dead iotap runs (2.0 MB)\n"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(dead_run));
  EXPECT_FALSE(fs::exists(dead_vm));
  EXPECT_TRUE(fs::exists(live_run));
  EXPECT_TRUE(fs::exists(locked));
  EXPECT_TRUE(fs::exists(other_tool));
  EXPECT_TRUE(fs::exists(no_suffix));

  // Nothing more to remove: the next run says nothing.
  run = run_iotap(tmp.path());
  EXPECT_EQ(run.err.find("leftover"), std::string::npos) << run.err;

  // Once the concurrent run is over (and the lock dropped), its dirs are leftovers too.
  ::close(hold[1]);
  ::waitpid(running, nullptr, 0);
  ::close(lock);
  run = run_iotap(tmp.path());
  EXPECT_NE(run.err.find("iotap: removed 2 leftover temp dirs"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(live_run));
  EXPECT_FALSE(fs::exists(locked));
  ::close(hold[0]);
}

TEST(Leftovers, AnotherUsersDirIsNeverRemoved) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can make a dir owned by someone else";
  const TempDir tmp("iotap-leftovers-test");
  const std::string theirs =
      make_dir(tmp / ("iotap-run." + std::to_string(dead_pid()) + ".m4n5o6"));
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  EXPECT_EQ(remove_leftovers(tmp.path()).dirs, 0);
  EXPECT_TRUE(fs::exists(theirs));
}

TEST(Leftovers, SizesAreSaidTheWayDuWould) {
  EXPECT_EQ(human_bytes(0), "0 bytes");
  EXPECT_EQ(human_bytes(812'000), "812 kB");
  EXPECT_EQ(human_bytes(2'048'000), "2.0 MB");
  EXPECT_EQ(human_bytes(37'400'000), "37 MB");
  EXPECT_EQ(human_bytes(1'200'000'000), "1.2 GB");
}

}  // namespace
}  // namespace iotap
