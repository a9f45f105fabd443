// stapio_drain.so (launcher/target/stapio_drain/stapio_drain.c) preloaded into a stand-in stapio
// (fake_stapio.c): the messages its readers left in the relay files come out on standard output,
// whole and in sequence order, and stapio's children do not inherit the library.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

struct Message {
  uint32_t sequence;
  std::string payload;
};

// A relay file as stapio reads it: {u32 sequence; u32 length} and the payload, per message.
std::string relay_file(const std::vector<Message>& messages) {
  std::string bytes;
  for (const auto& message : messages) {
    const uint32_t header[2] = {message.sequence, static_cast<uint32_t>(message.payload.size())};
    bytes.append(reinterpret_cast<const char*>(header), sizeof header);
    bytes += message.payload;
  }
  return bytes;
}

Captured run_stapio(const std::string& dir, int files, const std::string& preload) {
  SpawnOptions options;
  options.extra_env = {"LD_PRELOAD=" + preload};
  return capture({FAKE_STAPIO, dir, std::to_string(files)}, options);
}

TEST(StapioDrain, WritesWhatTheReadersLeftInSequenceOrder) {
  TempDir dir("stapio-drain-test");
  // Two CPUs' files, their messages interleaved in sequence, one longer than a page.
  const std::string long_line = std::string(5000, 'x') + "\n";
  write_file(dir.path() + "/trace0", relay_file({{3, "RS 3\n"}, {4, long_line}, {7, "RD 7\n"}}));
  write_file(dir.path() + "/trace1", relay_file({{5, "Q 5\n"}, {6, "C 6\n"}}));
  const auto run = run_stapio(dir.path(), 2, STAPIO_DRAIN);
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, "RS 3\n" + long_line + "Q 5\nC 6\nRD 7\n");
}

TEST(StapioDrain, StapiosChildrenDoNotInheritIt) {
  TempDir dir("stapio-drain-test");
  write_file(dir.path() + "/trace0", "");
  const auto alone = run_stapio(dir.path(), 1, STAPIO_DRAIN);
  EXPECT_EQ(alone.err, "LD_PRELOAD=(unset)\n");
  // What the user preloads stays preloaded.
  const auto with_user_library = run_stapio(dir.path(), 1, STAPIO_DRAIN ":" USER_PRELOAD);
  EXPECT_EQ(with_user_library.err, "LD_PRELOAD=" USER_PRELOAD "\n");
  EXPECT_EQ(alone.out, "");
}

TEST(StapioDrain, StopsAtAHeaderThatIsNotOne) {
  TempDir dir("stapio-drain-test");
  // A length of 0 is no message (stapio's readers lost their place): nothing after it is used.
  write_file(dir.path() + "/trace0",
             relay_file({{1, "kept\n"}}) + std::string(8, '\0') + relay_file({{2, "after\n"}}));
  const auto run = run_stapio(dir.path(), 1, STAPIO_DRAIN);
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, "kept\n");
}

}  // namespace
}  // namespace iotap
