#include "plan.h"

#include <algorithm>
#include <map>

#include "error.h"
#include "iotap/recording/fidelity.h"

namespace io_replayer {

Needs needs_of(const iotap::recording::Recording& recording) {
  Needs needs;
  for (const auto& r : recording.requests) {
    needs.writes += r.op == 'W' ? 1 : 0;
    if (r.op != 'F') (r.direct ? needs.direct : needs.buffered) = true;
  }
  return needs;
}

Plan make_plan(const iotap::recording::Recording& recording, uint64_t device_bytes,
               const std::string& device_name) {
  const auto& requests = recording.requests;
  // The file holds requests in the order they ended; ids go by the order they started (as
  // iotap replay's fidelity check numbers them), so each thread's ids rise along its sequence.
  const std::vector<const iotap::recording::Request*> order = iotap::recording::by_start(recording);
  Plan plan;
  for (const auto& r : requests) {
    if (r.op != 'F') plan.span = std::max(plan.span, r.offset + r.size);
    if (r.size > device_bytes)
      throw Error("the recording has a request of " + std::to_string(r.size) + " bytes; " +
                  device_name + " holds " + std::to_string(device_bytes));
  }
  if (plan.span > device_bytes)
    plan.scale = static_cast<double>(device_bytes) / static_cast<double>(plan.span);
  std::map<uint32_t, std::vector<Step>> by_thread;
  uint64_t id = 0;
  for (const auto* request : order) {
    const auto& r = *request;
    Step step{.id = ++id,
              .op = r.op,
              .offset = r.offset,
              .size = r.size,
              .direct = r.direct,
              .datasync = r.call == "fdatasync",
              .recorded_start = r.start_ns};
    if (plan.scale < 1 && r.op != 'F') {
      const auto scaled = static_cast<uint64_t>(static_cast<double>(r.offset) * plan.scale);
      step.offset = std::min(scaled, device_bytes - r.size) / kScaledAlignment * kScaledAlignment;
    }
    (r.op == 'R' ? plan.reads : r.op == 'W' ? plan.writes : plan.flushes) += 1;
    by_thread[r.thread].push_back(step);
  }
  plan.requests = id;
  for (auto& [thread, steps] : by_thread) plan.threads.push_back(std::move(steps));
  return plan;
}

}  // namespace io_replayer
