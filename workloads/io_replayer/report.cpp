#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "iotap/recording/fidelity.h"

namespace io_replayer {

namespace {

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

std::optional<iotap::recording::Fidelity::Pacing> pacing_error(
    const iotap::recording::Recording& recording, const Plan& plan, const ReplayResult& result,
    const Pace& pace) {
  std::vector<iotap::recording::Replayed> replayed;
  for (size_t i = 0; i < plan.threads.size(); ++i)
    for (size_t k = 0; k < plan.threads[i].size(); ++k)
      replayed.push_back({.id = plan.threads[i][k].id,
                          .thread = static_cast<uint32_t>(i),
                          .start_ns = result.threads[i][k].issued_ns,
                          .result = result.threads[i][k].result});
  return iotap::recording::fidelity(recording, std::move(replayed),
                                    pace.fast ? std::nullopt : std::optional(pace.speed))
      .pacing;
}

std::string format_text(const Options& options, const iotap::recording::Recording& recording,
                        const Plan& plan, const ReplayResult& result) {
  std::string text = "replayed " + std::to_string(plan.requests) + " requests (" +
                     std::to_string(plan.reads) + " reads, " + std::to_string(plan.writes) +
                     " writes, " + std::to_string(plan.flushes) + " flushes) of " +
                     std::to_string(plan.threads.size()) + " threads from " + options.recording +
                     " on " + options.device + "\n";
  text += "  pace: " + pace_name(options.pace) + ", " +
          fixed(static_cast<double>(result.elapsed_ns) / 1e6) + " ms\n";
  text += "  bytes: " + std::to_string(result.bytes) +
          ", failed or short: " + std::to_string(result.errors) + "\n";
  if (const auto pacing = pacing_error(recording, plan, result, options.pace)) {
    text += "  pacing: |replayed gap - recorded gap| p50 " + fixed(pacing->p50_us) + " us, p99 " +
            fixed(pacing->p99_us) + " us over " + std::to_string(pacing->gaps) + " gaps\n";
  }
  return text;
}

std::string format_json(const Options& options, const iotap::recording::Recording& recording,
                        const Plan& plan, const ReplayResult& result) {
  nlohmann::ordered_json json{{"recording", options.recording},
                              {"device", options.device},
                              {"pace", pace_name(options.pace)},
                              {"requests", plan.requests},
                              {"reads", plan.reads},
                              {"writes", plan.writes},
                              {"flushes", plan.flushes},
                              {"threads", plan.threads.size()},
                              {"scale", plan.scale},
                              {"bytes", result.bytes},
                              {"errors", result.errors},
                              {"elapsed_ns", result.elapsed_ns},
                              {"pacing_error_us", nullptr}};
  if (const auto pacing = pacing_error(recording, plan, result, options.pace)) {
    json["pacing_error_us"] = {
        {"gaps", pacing->gaps}, {"p50", pacing->p50_us}, {"p99", pacing->p99_us}};
  }
  return json.dump(2) + "\n";
}

}  // namespace io_replayer
