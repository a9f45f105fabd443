// Options::finished_request: each request as it ends, for iotap record. Its fields must be what
// the stream said: the request's own numbers, the device it went to, O_DIRECT, and times from
// the first request's start.
#include <gtest/gtest.h>

#include <vector>

#include "stream.h"

namespace iotap::engine::testing {
namespace {

struct Kept {
  FinishedRequest request;
  std::string call;  // FinishedRequest::call views the engine's table; kept as text to be safe
};

std::vector<Kept> finished(const std::vector<StackDevice>& stack, const std::string& text,
                           Options options) {
  std::vector<Kept> out;
  options.finished_request = [&](const FinishedRequest& f) {
    out.push_back({f, std::string(f.call)});
  };
  run(stack, text, options);
  return out;
}

TEST(FinishedRequests, UsdtReadsCarryTheirThreadTheirDeviceAndTheRunsODirect) {
  Stream s;
  s.raw("RB 1000 0 1 300 1\n");
  // Thread 0 (tid 300) reads block 0 through md0 to ram0; thread 1 (tid 301) starts first but
  // ends later, and its read never reaches a device.
  s.rs(2 * kUs, 1, 301, 2, 1048576)
      .rs(5 * kUs, 0, 300, 1, 0)
      .q(10 * kUs, 0, 300, 0xa0, kMd0, 0, 4096)
      .m(12 * kUs, 0, 300, 0xa1, ram(0), 4096, 4096, kMd0, 0)
      .q(13 * kUs, 0, 300, 0xa1, ram(0), 4096, 4096)
      .c(33 * kUs, 0, 0, 0xa1)
      .c(40 * kUs, 0, 0, 0xa0)
      .rd(60 * kUs, 0, 300, 1, 4096)
      .rd(80 * kUs, 1, 301, 2, -5);
  const auto got = finished(raid0(2), s.text(), {});
  ASSERT_EQ(got.size(), 2U);
  const FinishedRequest& first = got[0].request;
  EXPECT_EQ(first.id, 1U);
  EXPECT_EQ(first.thread, 0);
  EXPECT_EQ(first.tid, 300);
  EXPECT_EQ(first.op, 'R');
  EXPECT_EQ(got[0].call, "read");
  EXPECT_EQ(first.offset, 0U);
  EXPECT_EQ(first.size, 1048576U);
  EXPECT_EQ(first.result, 4096);
  EXPECT_EQ(first.start_ns, 5 * kUs);
  EXPECT_EQ(first.latency_ns, 55 * kUs);
  EXPECT_EQ(first.dev, kMd0) << "the top device of its first bio";
  EXPECT_TRUE(first.direct) << "RB said the run reads with O_DIRECT";
  EXPECT_EQ(first.first_start_ns, 2 * kUs) << "thread 1's read started first";
  const FinishedRequest& second = got[1].request;
  EXPECT_EQ(second.thread, 1);
  EXPECT_EQ(second.result, -5);
  EXPECT_EQ(second.dev, 0U) << "no bio: the device is not known";
  EXPECT_EQ(second.latency_ns, 78 * kUs);
}

TEST(FinishedRequests, SystemCallsCarryTheirCallTheirFilesDeviceAndTheirOwnODirect) {
  Stream s;
  s.ss(0, 0, 300, "pwrite64", kMd0, 8192, 4096, /*direct=*/false)
      .sd(7 * kUs, 0, 300, 4096)
      .ss(9 * kUs, 0, 300, "fdatasync", kMd0, 0, 0, /*direct=*/false)
      .sd(20 * kUs, 0, 300, 0)
      .ss(30 * kUs, 0, 300, "pread64", kMd0, 0, 512, /*direct=*/true)
      .sd(31 * kUs, 0, 300, 512);
  Options options;
  options.requests = RequestSource::syscall;
  const auto got = finished(raid0(2), s.text(), options);
  ASSERT_EQ(got.size(), 3U);
  EXPECT_EQ(got[0].call, "pwrite64");
  EXPECT_EQ(got[0].request.op, 'W');
  EXPECT_EQ(got[0].request.offset, 8192U);
  EXPECT_FALSE(got[0].request.direct);
  EXPECT_EQ(got[0].request.dev, kMd0);
  EXPECT_EQ(got[0].request.thread, 300) << "system calls: the tid";
  EXPECT_EQ(got[1].call, "fdatasync");
  EXPECT_EQ(got[1].request.op, 'F');
  EXPECT_EQ(got[1].request.latency_ns, 11 * kUs);
  EXPECT_EQ(got[2].call, "pread64");
  EXPECT_TRUE(got[2].request.direct);
  EXPECT_EQ(got[2].request.first_start_ns, 0U);
}

TEST(FinishedRequests, ReplayedRequestsKeepTheirOpAndODirect) {
  Stream s;
  s.raw("US 1000 0 1 300 1 0 W 8192 4096 1\n")
      .q(2000, 0, 300, 0xa0, kMd0, 16, 4096)
      .c(9000, 0, 0, 0xa0)
      .raw("UD 10000 0 4 300 1 4096\n")
      .raw("US 11000 0 5 300 2 0 F 0 0 0\n")
      .raw("UD 15000 0 6 300 2 0\n");
  const auto got = finished(raid0(2), s.text(), {});
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[0].request.op, 'W');
  EXPECT_EQ(got[0].call, "write");
  EXPECT_TRUE(got[0].request.direct);
  EXPECT_EQ(got[0].request.dev, kMd0);
  EXPECT_EQ(got[0].request.latency_ns, 9000U);
  EXPECT_EQ(got[1].request.op, 'F');
  EXPECT_EQ(got[1].call, "flush");
  EXPECT_FALSE(got[1].request.direct);
}

}  // namespace
}  // namespace iotap::engine::testing
