// One run at a time per lock file (util/file_lock.h): a second taker is told it waits, gets the
// lock when the first lets it go, and a stop signal ends its wait.
#include "iotap/util/file_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "iotap/util/stop_signal.h"
#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

TEST(FileLock, TheSecondTakerWaitsUntilTheFirstLetsGo) {
  const TempDir dir("iotap-file-lock-test");
  const std::string path = dir / "module.lock";
  auto first = std::make_unique<FileLock>(
      path, [] { ADD_FAILURE() << "nobody held it"; }, "");
  std::promise<void> waiting;
  std::atomic<bool> taken{false};
  std::thread second([&] {
    const FileLock lock(
        path, [&] { waiting.set_value(); }, "");
    taken = true;
  });
  waiting.get_future().wait();  // told that it waits: the first still holds the lock
  EXPECT_FALSE(taken);
  first.reset();
  second.join();
  EXPECT_TRUE(taken);
  // Let go again: a third takes it at once.
  const FileLock third(
      path, [] { ADD_FAILURE() << "the second did not let go"; }, "");
}

TEST(FileLock, AStopSignalEndsTheWait) {
  const TempDir dir("iotap-file-lock-test");
  const std::string path = dir / "module.lock";
  const FileLock held(path, {}, "");
  std::array<int, 2> told{};
  ASSERT_EQ(::pipe(told.data()), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_stop_handlers();
    try {
      const FileLock lock(
          path, [&] { (void)::write(told[1], "w", 1); }, "while waiting");
      ::_exit(1);
    } catch (const Stopped& stopped) {
      ::_exit(stopped.signal() == SIGTERM &&
                      std::string(stopped.what()) == "stopped by SIGTERM while waiting"
                  ? 0
                  : 2);
    }
  }
  ::close(told[1]);
  char byte = 0;
  ASSERT_EQ(::read(told[0], &byte, 1), 1);  // it waits
  ::close(told[0]);
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: it took the lock; 2: the wrong stop";
}

}  // namespace
}  // namespace iotap
