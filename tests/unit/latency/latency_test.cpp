// latencytap's analysis on a real recording: `iotap run examples/latency.stp` in the guest over
// raid0(ram*3, delay(ram, 20ms)), block_hasher -b 65536 -t 4 -n 32 --direct --hash xxh3
// (tests/unit/data/latency_raid0_delay20.txt, addresses already named from the guest's kallsyms).
#include <gtest/gtest.h>

#include <sstream>

#include "iotap/latency/blocked_time.h"
#include "iotap/latency/reasons.h"
#include "iotap/latency/sleep_event.h"
#include "iotap/util/files.h"

namespace iotap::latency {
namespace {

std::vector<symbols::Frame> frames(std::initializer_list<const char*> names) {
  std::vector<symbols::Frame> out;
  for (const char* name : names) out.push_back({0, name, ""});
  return out;
}

TEST(SleepEvent, ParsesASleepWithItsNamedStack) {
  const auto event = parse_sleep_event(
      "S 100 172 2 0xffffffffc045d0a0 0xffffffffc045d88c __schedule+0x4f8 __schedule+0x4f8 "
      "raid0_make_request+0x42 [raid0] vfs_read+0x23f\n");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, SleepEvent::Kind::kSleep);
  EXPECT_EQ(event->timestamp_ns, 100U);
  EXPECT_EQ(event->tid, 172);
  EXPECT_EQ(event->state, 2U);
  // The probe handler's unnamed frames and the repeated first frame are gone.
  ASSERT_EQ(event->frames.size(), 3U);
  EXPECT_EQ(event->frames[0].function, "__schedule");
  EXPECT_EQ(event->frames[1].function, "raid0_make_request");
  EXPECT_EQ(event->frames[1].module, "raid0");
  EXPECT_EQ(event->frames[2].function, "vfs_read");
}

TEST(SleepEvent, RefusesLinesThatAreNotEvents) {
  EXPECT_FALSE(parse_sleep_event("iotap-latency 1\n"));
  EXPECT_FALSE(parse_sleep_event("thread 0: 8 blocks, 0.5 MiB in 0.1 s\n"));
  EXPECT_FALSE(parse_sleep_event("S notanumber 1 2\n"));
  EXPECT_FALSE(parse_sleep_event("W 12\n"));
}

TEST(Reasons, NamedAsLatencytopDid) {
  EXPECT_EQ(classify(frames({"__schedule", "schedule", "io_schedule_timeout", "submit_bio_wait",
                             "__blkdev_direct_IO_simple", "blkdev_read_iter", "vfs_read"}))
                .text,
            "Reading from file");
  EXPECT_EQ(
      classify(frames({"__schedule", "schedule", "futex_wait_queue", "futex_wait", "do_futex"}))
          .text,
      "Userspace lock contention");
  // A page fault taken while copying a read's data out is the page fault's time.
  EXPECT_EQ(classify(frames({"__schedule", "folio_wait_bit_common", "handle_mm_fault",
                             "exc_page_fault", "copy_user_generic", "vfs_read"}))
                .text,
            "Waiting for a page");
  const Reason other = classify(frames({"__schedule", "schedule", "rescuer_thread"}));
  EXPECT_EQ(other.text, "Other: rescuer_thread");
  EXPECT_EQ(classify({}).text, "Unknown");
}

BlockedTime recorded() {
  BlockedTimeTracker tracker;
  std::istringstream lines(read_file(LATENCY_RECORDING));
  std::string line;
  while (std::getline(lines, line)) {
    if (const auto event = parse_sleep_event(line)) tracker.add(*event);
  }
  return tracker.finish();
}

TEST(BlockedTime, TheDelayedReadsAreTheReadingTime) {
  const BlockedTime blocked = recorded();
  ASSERT_FALSE(blocked.reasons.empty());
  const ReasonTotals* reading = nullptr;
  const ReasonTotals* lock = nullptr;
  for (const auto& reason : blocked.reasons) {
    if (reason.reason == "Reading from file") reading = &reason;
    if (reason.reason == "Userspace lock contention") lock = &reason;
  }
  ASSERT_NE(reading, nullptr);
  ASSERT_NE(lock, nullptr);
  // 32 blocks of 64 KiB, chunk 512 KiB over 4 members: blocks 24..31 are on the delayed one,
  // and only its reads sleep (brd completes in the submitting thread).
  EXPECT_EQ(reading->count, 8U);
  EXPECT_GE(reading->total_ns / reading->count, 20'000'000U);
  EXPECT_EQ(reading->function, "vfs_read");
  // The main thread's pthread_join, and no other thread.
  EXPECT_EQ(lock->total_ns_by_thread.size(), 1U);
  // The workers' last switch (exit) is not a sleep: every sleep counted was ended by a wakeup.
  EXPECT_EQ(blocked.unfinished, 0U);
  uint64_t sum = 0;
  for (const auto& reason : blocked.reasons) sum += reason.total_ns;
  EXPECT_EQ(sum, blocked.total_ns);
  EXPECT_EQ(blocked.reasons.front().reason, "Reading from file");
}

TEST(BlockedTime, ASleepIsEndedOnlyByItsOwnThreadsWakeup) {
  BlockedTimeTracker tracker;
  tracker.add({SleepEvent::Kind::kSleep, 1000, 7, 2, frames({"vfs_read"})});
  tracker.add({SleepEvent::Kind::kWakeup, 1500, 8, 0, {}});                     // another thread
  tracker.add({SleepEvent::Kind::kSleep, 1200, 9, 0x80, frames({"do_exit"})});  // exiting
  tracker.add({SleepEvent::Kind::kWakeup, 4000, 7, 0, {}});
  const BlockedTime blocked = tracker.finish();
  ASSERT_EQ(blocked.reasons.size(), 1U);
  EXPECT_EQ(blocked.reasons[0].total_ns, 3000U);
  EXPECT_EQ(blocked.wakeups_without_sleep, 1U);
  EXPECT_EQ(blocked.unfinished, 0U);
}

}  // namespace
}  // namespace iotap::latency
