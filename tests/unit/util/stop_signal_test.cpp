// A stop signal while iotap waits on a child: the child's whole process group is killed and
// reaped, and Stopped carries the signal for main()'s exit status.
#include "iotap/util/stop_signal.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "iotap/util/process.h"

namespace iotap {
namespace {

// The pids of the live (not zombie) processes whose process group is `pgid`, from /proc.
std::vector<pid_t> group_members(pid_t pgid) {
  std::vector<pid_t> members;
  DIR* proc = ::opendir("/proc");
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat_file, line)) continue;
    // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    char state = 0;
    pid_t ppid = 0;
    pid_t group = 0;
    rest >> state >> ppid >> group;
    if (group == pgid && state != 'Z') members.push_back(pid);
  }
  ::closedir(proc);
  return members;
}

// The pids of the live processes whose parent is `parent`.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  DIR* proc = ::opendir("/proc");
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat_file, line)) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') children.push_back(pid);
  }
  ::closedir(proc);
  return children;
}

TEST(StopSignal, ACaptureIsStoppedWithItsWholeProcessGroup) {
  install_stop_handlers();
  // A child that starts two grandchildren, as stap starts make and gcc.
  SpawnOptions options;
  options.new_process_group = true;
  options.activity = "while testing";
  std::atomic<pid_t> leader{0};
  std::thread stopper([&] {
    // Waits for the group to be complete (polling /proc: nothing else can see it), then stops
    // the test process as a user would stop iotap.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < give_up) {
      for (const pid_t child : children_of(::getpid())) {
        if (group_members(child).size() == 3) {
          leader = child;
          ::kill(::getpid(), SIGTERM);
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  try {
    capture({"sh", "-c", "sleep 1000 & sleep 1000 & wait"}, options);
    ADD_FAILURE() << "capture returned without being stopped";
  } catch (const Stopped& stopped) {
    EXPECT_EQ(stopped.signal(), SIGTERM);
    EXPECT_EQ(stopped.exit_status(), 143);
    EXPECT_STREQ(stopped.what(), "stopped by SIGTERM while testing");
  }
  stopper.join();
  ASSERT_NE(leader.load(), 0);
  // Killed and reaped, grandchildren included: nothing of the group is left.
  EXPECT_TRUE(group_members(leader).empty());
  // Nothing new starts after a stop signal.
  EXPECT_THROW(spawn({"true"}), Stopped);
}

}  // namespace
}  // namespace iotap
