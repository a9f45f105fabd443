#include "perfetto_timeline.h"

#include <utility>

namespace iotap::test {
namespace {

using Json = nlohmann::json;

// The innermost slice on (pid, tid) enclosing ts, as an index (Perfetto binds a flow to the
// deepest slice open there: a provider's query encloses its reads, which enclose their flows);
// slices.size() when none, and a problem when two enclose it without one nesting in the other
// (slices on one track must nest).
size_t enclosing(Timeline& timeline, int pid, int tid, double ts) {
  size_t found = timeline.slices.size();
  for (size_t i = 0; i < timeline.slices.size(); ++i) {
    const Slice& slice = timeline.slices[i];
    if (slice.pid != pid || slice.tid != tid || ts < slice.ts || ts > slice.ts + slice.dur)
      continue;
    if (found != timeline.slices.size()) {
      const Slice& other = timeline.slices[found];
      const auto inside = [](const Slice& a, const Slice& b) {
        return a.ts >= b.ts && a.ts + a.dur <= b.ts + b.dur;
      };
      if (!inside(slice, other) && !inside(other, slice)) {
        timeline.problems.push_back("two slices on track " + std::to_string(pid) + "/" +
                                    std::to_string(tid) + " hold " + std::to_string(ts));
      } else if (inside(slice, other)) {
        found = i;
      }
      continue;
    }
    found = i;
  }
  return found;
}

}  // namespace

std::string Timeline::device_of(const Slice& slice) const {
  const std::string& name = process_names.at(slice.pid);
  return name.substr(0, name.find(' '));
}

Timeline read_timeline(const std::string& text) {
  const Json trace = Json::parse(text);
  Timeline timeline;
  std::map<uint64_t, std::pair<const Json*, const Json*>> flows;  // id: its s, its f
  for (const auto& event : trace.at("traceEvents")) {
    const std::string ph = event.at("ph");
    if (ph == "X") {
      timeline.slices.push_back({event.at("pid"),
                                 event.at("tid"),
                                 event.at("ts"),
                                 event.at("dur"),
                                 event.at("args"),
                                 {},
                                 0});
      if (event.at("args").contains("size"))
        timeline.requests[event.at("args").at("request")] = timeline.slices.size() - 1;
    } else if (ph == "M" && event.at("name") == "process_name") {
      timeline.process_names[event.at("pid")] = event.at("args").at("name");
    } else if (ph == "s" || ph == "f") {
      auto& ends = flows[event.at("id")];
      const Json*& end = ph == "s" ? ends.first : ends.second;
      if (end != nullptr)
        timeline.problems.push_back("flow " + event.at("id").dump() + " has two " + ph);
      if (ph == "f" && event.value("bp", "") != "e")
        timeline.problems.push_back("flow " + event.at("id").dump() +
                                    " ends without binding to its enclosing slice (bp: e)");
      end = &event;
    }
  }
  for (const auto& [id, ends] : flows) {
    const auto [from, to] = ends;
    if (from == nullptr || to == nullptr) {
      timeline.problems.push_back("flow " + std::to_string(id) + " has one end only");
      continue;
    }
    const size_t source = enclosing(timeline, (*from)["pid"], (*from)["tid"], (*from)["ts"]);
    const size_t target = enclosing(timeline, (*to)["pid"], (*to)["tid"], (*to)["ts"]);
    if (source == timeline.slices.size() || target == timeline.slices.size()) {
      timeline.problems.push_back("flow " + std::to_string(id) + " binds to no slice");
      continue;
    }
    timeline.slices[source].next.push_back(target);
    ++timeline.slices[target].incoming;
  }
  return timeline;
}

Reached follow_request(const Timeline& timeline, uint64_t request,
                       const std::set<std::string>& members) {
  Reached reached;
  std::vector<size_t> todo{timeline.requests.at(request)};
  while (!todo.empty()) {
    const size_t at = todo.back();
    todo.pop_back();
    for (const size_t next : timeline.slices[at].next) {
      reached.requests_of_reached.push_back(timeline.slices[next].args.at("request"));
      todo.push_back(next);
    }
    const Slice& slice = timeline.slices[at];
    if (at == timeline.requests.at(request) || !members.contains(timeline.device_of(slice)) ||
        !slice.args.value("io", true))
      continue;
    reached.member_ios.push_back(at);
    reached.member_bytes += slice.args.at("bytes").get<uint64_t>();
  }
  return reached;
}

}  // namespace iotap::test
