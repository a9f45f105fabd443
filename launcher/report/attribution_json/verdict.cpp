#include <string>
#include <utility>

#include "iotap/report.h"
#include "sections.h"

namespace iotap::report::attribution_json {
namespace {

Json slow_members(const engine::Result& r) {
  // What share_of_slowest is a share of: the slowest tenth of the provider's outermost requests
  // ("queries") with levels, of the requests that reached a device without.
  const std::string slowest_of = r.levels.empty() ? "requests" : r.levels.front().plural;
  Json slow = Json::array();
  for (const auto& s : r.slow_members)
    slow.push_back({{"name", s.name},
                    {"spec", name_or_null(s.spec)},
                    {"parent", name_or_null(s.parent)},
                    {"member", s.member},
                    {"array", s.array},
                    {"evidence",
                     {{"mean_us", s.mean_us},
                      {"siblings_mean_us", s.siblings_mean_us},
                      {"siblings", s.siblings},
                      {"share_of_slowest", s.share_of_slowest},
                      {"slowest_fraction", engine::kSlowestFraction},
                      {"slowest_of", slowest_of},
                      {"slowest_requests", s.slowest_requests}}}});
  return slow;
}

Json failing_members(const engine::Result& r) {
  Json failing = Json::array();
  for (const auto& f : r.failing_members)
    failing.push_back({{"name", f.name},
                       {"spec", name_or_null(f.spec)},
                       {"parent", name_or_null(f.parent)},
                       {"ios", f.ios},
                       {"errors", f.errors}});
  return failing;
}

}  // namespace

Json verdict(const engine::Result& r, std::string_view why) {
  Json reason = nullptr;
  if (const std::string sentence = verdict_status_sentence(r); !sentence.empty())
    reason = why.empty() ? sentence : sentence + "; " + std::string(why);
  return {{"status", engine::to_string(engine::verdict_status(r))},
          {"reason", std::move(reason)},
          {"slow_members", slow_members(r)},
          {"failing_members", failing_members(r)}};
}

}  // namespace iotap::report::attribution_json
