// latencytap's analysis on a real recording: `iotap run examples/latency.stp` in the guest over
// raid0(ram*3, delay(ram, 20ms)), block_hasher -b 65536 -t 4 -n 32 --direct --hash xxh3
// (tests/unit/data/latency_raid0_delay20.txt, addresses already named from the guest's kallsyms).
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "iotap/latency/blocked_time.h"
#include "iotap/latency/latency_format.h"
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
      "S 100 1 7 172 2 0xffffffffc045d0a0 0xffffffffc045d88c __schedule+0x4f8 __schedule+0x4f8 "
      "raid0_make_request+0x42 [raid0] vfs_read+0x23f\n");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, SleepEvent::Kind::kSleep);
  EXPECT_EQ(event->timestamp_ns, 100U);
  EXPECT_EQ(event->cpu, 1U);
  EXPECT_EQ(event->seq, 7U);
  EXPECT_EQ(event->tid, 172);
  EXPECT_EQ(event->state, 2U);
  // The probe handler's unnamed frames and the repeated first frame are gone.
  ASSERT_EQ(event->frames.size(), 3U);
  EXPECT_EQ(event->frames[0].function, "__schedule");
  EXPECT_EQ(event->frames[1].function, "raid0_make_request");
  EXPECT_EQ(event->frames[1].module, "raid0");
  EXPECT_EQ(event->frames[2].function, "vfs_read");
}

TEST(SleepEvent, ParsesAWakeupAndACpusLastNumber) {
  const auto wakeup = parse_sleep_event("W 4000 0 9 179\n");
  ASSERT_TRUE(wakeup);
  EXPECT_EQ(wakeup->kind, SleepEvent::Kind::kWakeup);
  EXPECT_EQ(wakeup->timestamp_ns, 4000U);
  EXPECT_EQ(wakeup->cpu, 0U);
  EXPECT_EQ(wakeup->seq, 9U);
  EXPECT_EQ(wakeup->tid, 179);
  const auto end = parse_sleep_event("E 3 61\n");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->kind, SleepEvent::Kind::kEnd);
  EXPECT_EQ(end->cpu, 3U);
  EXPECT_EQ(end->seq, 61U);
}

TEST(SleepEvent, RefusesLinesThatAreNotEvents) {
  EXPECT_FALSE(parse_sleep_event("iotap-latency 2\n"));
  EXPECT_FALSE(parse_sleep_event("thread 0: 8 blocks, 0.5 MiB in 0.1 s\n"));
  EXPECT_FALSE(parse_sleep_event("S notanumber 1 2 3 2\n"));
  EXPECT_FALSE(parse_sleep_event("W 12\n"));
  // Version 1's wakeup (no CPU, no SEQ) is not read as a CPU and a number.
  EXPECT_FALSE(parse_sleep_event("W 1795387914013355160 179\n"));
  // Two lines the transport ran together.
  EXPECT_FALSE(parse_sleep_event("W 4000 0 9 179W 4100 0 10 180\n"));
  EXPECT_FALSE(parse_sleep_event("W 4000 0 9 179 W 4100 0 10 180\n"));
  EXPECT_FALSE(parse_sleep_event("E 3\n"));
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

// The recording's events, in the order they arrived.
std::vector<SleepEvent> recorded_events() {
  std::vector<SleepEvent> events;
  std::istringstream lines(read_file(LATENCY_RECORDING));
  std::string line;
  while (std::getline(lines, line)) {
    if (auto event = parse_sleep_event(line)) events.push_back(std::move(*event));
  }
  return events;
}

// The recording, less the events `drop` says to leave out (by their index).
BlockedTime recorded(const std::function<bool(size_t)>& drop = [](size_t) { return false; }) {
  BlockedTimeTracker tracker;
  const auto events = recorded_events();
  for (size_t index = 0; index < events.size(); ++index) {
    if (!drop(index)) tracker.add(events[index]);
  }
  return tracker.finish();
}

const ReasonTotals* reason_named(const BlockedTime& blocked, const std::string& name) {
  for (const auto& reason : blocked.reasons) {
    if (reason.reason == name) return &reason;
  }
  return nullptr;
}

TEST(BlockedTime, TheDelayedReadsAreTheReadingTime) {
  const BlockedTime blocked = recorded();
  ASSERT_FALSE(blocked.reasons.empty());
  const ReasonTotals* reading = reason_named(blocked, "Reading from file");
  const ReasonTotals* lock = reason_named(blocked, "Userspace lock contention");
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
  // Every CPU's lines arrived, each once.
  EXPECT_EQ(blocked.events_lost, 0U);
  EXPECT_EQ(blocked.events_repeated, 0U);
}

size_t index_of_first_read_sleep(const std::vector<SleepEvent>& events) {
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind == SleepEvent::Kind::kSleep && events[i].state == 2) return i;
  }
  return events.size();
}

TEST(BlockedTime, ASleepLostInTransportIsCountedAsLost) {
  const auto events = recorded_events();
  const size_t lost = index_of_first_read_sleep(events);
  ASSERT_LT(lost, events.size());
  const BlockedTime blocked = recorded([&](size_t index) { return index == lost; });
  // One read's sleep is missing, its wakeup matches nothing, and the report says one line was
  // lost rather than nothing.
  EXPECT_EQ(reason_named(blocked, "Reading from file")->count, 7U);
  EXPECT_EQ(blocked.events_lost, 1U);
  EXPECT_EQ(blocked.wakeups_without_sleep, 2U);
}

TEST(LatencyFormat, ALostLineIsSaidInTheTableAndTheJson) {
  const auto events = recorded_events();
  const size_t lost = index_of_first_read_sleep(events);
  const BlockedTime blocked = recorded([&](size_t index) { return index == lost; });
  EXPECT_NE(latency_text(blocked, false).find("\nlost: 1 of the probes' lines never arrived"),
            std::string::npos);
  EXPECT_EQ(latency_json(blocked)["events_lost"], 1);
  // Nothing lost, nothing said.
  EXPECT_EQ(latency_text(recorded(), false).find("lost:"), std::string::npos);
  EXPECT_EQ(latency_json(recorded())["events_lost"], 0);
}

TEST(BlockedTime, TheLastLinesOfACpuLostAreCountedFromItsEndLine) {
  const auto events = recorded_events();
  // Every line of CPU 1 after its third is lost; only its E line says how many it printed.
  uint64_t cpu1_lines = 0;
  for (const auto& event : events) {
    if (event.kind != SleepEvent::Kind::kEnd && event.cpu == 1) ++cpu1_lines;
  }
  ASSERT_GT(cpu1_lines, 3U);
  const BlockedTime blocked = recorded([&](size_t index) {
    return events[index].kind != SleepEvent::Kind::kEnd && events[index].cpu == 1 &&
           events[index].seq > 3;
  });
  EXPECT_EQ(blocked.events_lost, cpu1_lines - 3);
}

TEST(BlockedTime, ALineSeenTwiceIsTakenOnce) {
  BlockedTimeTracker tracker;
  tracker.add({SleepEvent::Kind::kSleep, 1000, 0, 1, 7, 2, frames({"vfs_read"})});
  tracker.add({SleepEvent::Kind::kWakeup, 4000, 1, 1, 7, 0, {}});
  // Stale bytes handed over again: the same sleep, and its wakeup.
  tracker.add({SleepEvent::Kind::kSleep, 1000, 0, 1, 7, 2, frames({"vfs_read"})});
  tracker.add({SleepEvent::Kind::kWakeup, 4000, 1, 1, 7, 0, {}});
  tracker.add({SleepEvent::Kind::kEnd, 0, 0, 1, 0, 0, {}});
  tracker.add({SleepEvent::Kind::kEnd, 0, 1, 1, 0, 0, {}});
  const BlockedTime blocked = tracker.finish();
  ASSERT_EQ(blocked.reasons.size(), 1U);
  EXPECT_EQ(blocked.reasons[0].count, 1U);
  EXPECT_EQ(blocked.events_repeated, 2U);
  EXPECT_EQ(blocked.events_lost, 0U);
  EXPECT_EQ(blocked.wakeups_without_sleep, 0U);
}

TEST(BlockedTime, ASleepIsEndedOnlyByItsOwnThreadsWakeup) {
  BlockedTimeTracker tracker;
  tracker.add({SleepEvent::Kind::kSleep, 1000, 0, 1, 7, 2, frames({"vfs_read"})});
  tracker.add({SleepEvent::Kind::kWakeup, 1500, 0, 2, 8, 0, {}});  // another thread
  tracker.add({SleepEvent::Kind::kSleep, 1200, 1, 1, 9, 0x80, frames({"do_exit"})});  // exiting
  tracker.add({SleepEvent::Kind::kWakeup, 4000, 0, 3, 7, 0, {}});
  const BlockedTime blocked = tracker.finish();
  ASSERT_EQ(blocked.reasons.size(), 1U);
  EXPECT_EQ(blocked.reasons[0].total_ns, 3000U);
  EXPECT_EQ(blocked.wakeups_without_sleep, 1U);
  EXPECT_EQ(blocked.unfinished, 0U);
}

}  // namespace
}  // namespace iotap::latency
