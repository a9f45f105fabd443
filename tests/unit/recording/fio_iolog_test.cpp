// fio's iolog version 3 from a recording: requests in the order they started, microseconds from
// 1, fsync and fdatasync as fio names them. (A vm-free run of fio on it: cli test
// fio_replays_a_recording.)
#include <gtest/gtest.h>

#include "iotap/recording/recording.h"

namespace iotap::recording {
namespace {

TEST(FioIolog, RequestsGoInTheOrderTheyStartedWithMicrosecondStampsFromOne) {
  Recording recording;
  // As a recording holds them: in the order they ended.
  recording.requests = {
      {.start_ns = 2'500'000,
       .thread = 1,
       .op = 'W',
       .offset = 8192,
       .size = 4096,
       .result = 4096,
       .latency_ns = 1000,
       .dev = "9:0",
       .direct = true,
       .call = "pwrite64"},
      {.start_ns = 0,
       .thread = 0,
       .op = 'R',
       .offset = 0,
       .size = 4096,
       .result = 4096,
       .latency_ns = 9'000'000,
       .dev = "9:0",
       .direct = true,
       .call = "pread64"},
      {.start_ns = 9'000'999,
       .thread = 0,
       .op = 'F',
       .offset = 0,
       .size = 0,
       .result = 0,
       .latency_ns = 5,
       .dev = "9:0",
       .direct = false,
       .call = "fdatasync"},
      {.start_ns = 9'500'000,
       .thread = 1,
       .op = 'F',
       .offset = 0,
       .size = 0,
       .result = 0,
       .latency_ns = 5,
       .dev = "9:0",
       .direct = false,
       .call = "fsync"},
  };
  EXPECT_EQ(fio_iolog(recording, "/dev/md0"),
            "fio version 3 iolog\n"
            "1 /dev/md0 add\n"
            "1 /dev/md0 open\n"
            "1 /dev/md0 read 0 4096\n"
            "2501 /dev/md0 write 8192 4096\n"
            "9001 /dev/md0 datasync 0 0\n"
            "9501 /dev/md0 sync 0 0\n"
            "9501 /dev/md0 close\n");
}

}  // namespace
}  // namespace iotap::recording
