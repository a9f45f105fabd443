#include <algorithm>
#include <tuple>

#include "html_parts.h"
#include "sections.h"

namespace iotap::report::perfetto {
namespace {

Json bio_slice(const Bio& bio, int pid, int tid, uint64_t origin) {
  Json args = {{"bio", bio.id},
               {"sector", bio.sector},
               {"bytes", bio.bytes},
               {"request", bio.request_id},
               {"error", bio.error}};
  // A split part, or the first stage of a bio remapped as itself: not an io of the device.
  if (!bio.io) args["io"] = false;
  std::string name = "bio " + html_parts::bytes(static_cast<double>(bio.bytes));
  if (bio.error != 0) name += " error " + std::to_string(bio.error);
  return {{"ph", "X"},
          {"cat", "bio"},
          {"name", name},
          {"pid", pid},
          {"tid", tid},
          {"ts", microseconds(bio.start_ns, origin)},
          {"dur", microseconds(bio.end_ns, bio.start_ns)},
          {"args", args}};
}

}  // namespace

// Each device's bios on lanes: the first lane free at a bio's start takes it. A device serves
// many bios at a time and slices on one track must nest.
BioTracks bios(const std::vector<Bio>& bios, const std::unordered_map<std::string, int>& pid_of,
               uint64_t origin, Json& events) {
  std::vector<size_t> order(bios.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::sort(order, [&bios](size_t a, size_t b) {
    return std::tie(bios[a].start_ns, bios[a].id) < std::tie(bios[b].start_ns, bios[b].id);
  });
  std::unordered_map<std::string, std::vector<uint64_t>> lane_ends;  // by device
  BioTracks track_of;
  for (const size_t i : order) {
    const Bio& bio = bios[i];
    auto& ends = lane_ends[bio.device];
    size_t lane = 0;
    // Strictly after: slices that touch on one track would leave a flow's end two slices to bind
    // to.
    while (lane < ends.size() && ends[lane] >= bio.start_ns) ++lane;
    if (lane == ends.size()) {
      ends.push_back(0);
      events.push_back(metadata("thread_name", pid_of.at(bio.device), static_cast<int>(lane) + 1,
                                {{"name", bio.device + " lane " + std::to_string(lane + 1)}}));
    }
    ends[lane] = std::max(bio.end_ns, bio.start_ns);
    const int pid = pid_of.at(bio.device);
    const int tid = static_cast<int>(lane) + 1;
    track_of[bio.id] = {pid, tid};
    events.push_back(bio_slice(bio, pid, tid, origin));
  }
  return track_of;
}

}  // namespace iotap::report::perfetto
