// The --perfetto timeline of recorded guest runs, read back as ui.perfetto.dev reads it
// (perfetto_timeline.h). Followed from each request, the arrows must reach the member disks'
// bios exactly as the engine joined them (each member bio from the one request the engine gave
// it; every io the engine counted on a device, a slice on it), and cover the bytes the program
// asked for (its own probes' or system calls' sizes), once per copy the array keeps.
#include "iotap/report/perfetto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "iotap/engine.h"
#include "perfetto_timeline.h"
#include "trace_file.h"

namespace iotap::golden {
namespace {

using test::Timeline;

// The member disks of a stack: the devices nothing sits under.
std::set<std::string> members_of(const std::vector<StackDevice>& stack) {
  std::set<std::string> parents;
  for (const auto& device : stack) parents.insert(device.parent);
  std::set<std::string> members;
  for (const auto& device : stack)
    if (!parents.contains(device.name)) members.insert(device.name);
  return members;
}

struct Followed {
  engine::Result result;
  Timeline timeline;
  std::vector<StackDevice> stack;
  std::map<uint64_t, engine::FinishedRequest> requests;
  size_t arrows_waiting_at_most = 0;
};

Followed follow(const std::string& name) {
  const Trace trace = load_trace(std::string(GOLDEN_DIR) + "/traces/" + name + ".json");
  std::string text;
  report::PerfettoTrace perfetto([&text](std::string_view piece) { text += piece; }, name);
  perfetto.set_stack(trace.stack);
  Followed out;
  engine::Options options;
  if (trace.script.ends_with("/syscall_events.stp"))
    options.requests = engine::RequestSource::syscall;
  options.finished_request = [&](const engine::FinishedRequest& request) {
    perfetto.add(request);
    out.requests[request.id] = request;
  };
  options.finished_bio = [&](const engine::FinishedBio& bio) { perfetto.add(bio); };
  out.result = run_trace(trace, options, size_t{64} * 1024);
  perfetto.finish();
  out.timeline = test::read_timeline(text);
  out.arrows_waiting_at_most = perfetto.arrows_waiting_at_most();
  out.stack = trace.stack;
  return out;
}

// `copies`: how many times the array writes a request's bytes to its members (raid1: 2).
// Returns how many requests' bytes were checked.
size_t expect_flows_join_as_the_engine_did(const Followed& run, uint64_t copies) {
  // Written as it goes: the arrows waiting for their start's slice to end are never more than
  // the reads and bios the engine itself held at once (each waits for one of them).
  EXPECT_LE(run.arrows_waiting_at_most, run.result.stream.peak_held);
  EXPECT_GT(run.arrows_waiting_at_most, 0U);
  const Timeline& timeline = run.timeline;
  EXPECT_EQ(timeline.problems, std::vector<std::string>{});
  const std::set<std::string> members = members_of(run.stack);
  EXPECT_EQ(timeline.requests.size(), run.requests.size());
  std::map<size_t, uint64_t> reached_from;  // member io slice: the request that reached it
  // Requests in the order they started: a flush writes back what the thread's buffered writes
  // left in the page cache before it.
  std::vector<const engine::FinishedRequest*> by_start;
  for (const auto& [id, request] : run.requests) by_start.push_back(&request);
  std::ranges::sort(by_start, {}, &engine::FinishedRequest::start_ns);
  std::map<int32_t, uint64_t> buffered;  // by tid: bytes written with no block I/O of their own
  size_t checked = 0;
  for (const engine::FinishedRequest* request : by_start) {
    const test::Reached reached = test::follow_request(timeline, request->id, members);
    for (const uint64_t owner : reached.requests_of_reached)
      EXPECT_EQ(owner, request->id)
          << "a bio reached from request " << request->id << " is the engine's for another";
    for (const size_t member_io : reached.member_ios)
      EXPECT_TRUE(reached_from.emplace(member_io, request->id).second)
          << "a member io reached twice";
    if (request->op == 'F') {
      if (reached.member_bytes == 0 && buffered[request->tid] == 0) continue;
      EXPECT_EQ(reached.member_bytes, copies * buffered[request->tid])
          << "flush " << request->id << " after " << buffered[request->tid] << " buffered bytes";
      buffered[request->tid] = 0;
      ++checked;
    } else if (request->result > 0 && reached.member_bytes == 0) {
      if (request->op == 'W') buffered[request->tid] += request->size;
    } else if (request->result > 0) {
      EXPECT_EQ(reached.member_bytes, copies * request->size)
          << "request " << request->id << " (" << request->call << " of " << request->size
          << " bytes)";
      ++checked;
    }
  }
  // Every member io the engine gave a request is reached from that request; every io the engine
  // counted on a device is a slice on it.
  std::map<std::string, uint64_t> ios;
  for (size_t i = 0; i < timeline.slices.size(); ++i) {
    const test::Slice& slice = timeline.slices[i];
    if (!slice.args.contains("bio") || !slice.args.value("io", true)) continue;
    const std::string device = timeline.device_of(slice);
    ++ios[device];
    const uint64_t request = slice.args.at("request");
    if (members.contains(device) && request != 0 && run.requests.contains(request)) {
      EXPECT_EQ(reached_from.count(i), 1U) << device << " io of request " << request;
    }
  }
  for (const auto& device : run.result.devices)
    EXPECT_EQ(ios[device.name], device.ios) << device.name;
  for (const auto& slice : timeline.slices) EXPECT_LE(slice.incoming, 1);
  return checked;
}

TEST(PerfettoTimeline, Raid0ReadsReachTheirMembersWithEveryByteOnce) {
  const Followed run = follow("incident");
  EXPECT_EQ(expect_flows_join_as_the_engine_did(run, 1), run.requests.size());
  EXPECT_EQ(run.timeline.process_names.at(1), "incident");
}

TEST(PerfettoTimeline, ALinearOverADelayInARaid0IsFollowedThroughEveryLayer) {
  const Followed run = follow("nested");
  EXPECT_EQ(expect_flows_join_as_the_engine_did(run, 1), run.requests.size());
}

TEST(PerfettoTimeline, Raid1WritesReachBothLegs) {
  const Followed run = follow("dd_fsync_raid1");
  EXPECT_GT(expect_flows_join_as_the_engine_did(run, 2), 0U);
}

TEST(PerfettoTimeline, EachDeviceIsAProcessInStackOrderAndNoTwoSlicesOfALaneOverlap) {
  const Followed run = follow("incident");
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const auto& slice : run.timeline.slices)
    tracks[{slice.pid, slice.tid}].emplace_back(slice.ts, slice.ts + slice.dur);
  for (auto& [track, spans] : tracks) {
    std::ranges::sort(spans);
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first)
          << "track " << track.first << "/" << track.second;
  }
  ASSERT_FALSE(run.stack.empty());
  EXPECT_EQ(run.timeline.device_of({100, 1, 0, 0, {}, {}, 0}), run.stack.front().name);
}

}  // namespace
}  // namespace iotap::golden
