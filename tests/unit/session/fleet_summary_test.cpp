// The fleet's report (session/fleet_run.h) from what each host's run ended with.
#include <gtest/gtest.h>

#include "iotap/session/fleet_run.h"
#include "iotap/session/target_options.h"
#include "iotap/util/exit_status.h"

namespace iotap::session {
namespace {

using Json = nlohmann::json;

HostOutcome slow_host() {
  HostOutcome host;
  host.target = "ssh://root@db1";
  host.result_json = R"({"verdict": {"slow_members": [{"name": "dm-0", "spec": "delay",
      "evidence": {"mean_us": 21000, "siblings_mean_us": 42, "share_of_slowest": 0.5}}]}})";
  return host;
}

HostOutcome healthy_host() {
  HostOutcome host;
  host.target = "ssh://db2:2222";
  host.result_json = R"({"verdict": {"slow_members": []}})";
  return host;
}

HostOutcome failed_host() {
  HostOutcome host;
  host.target = "ssh://db3";
  host.exit_status = 2;
  host.last_error = "db3 has no staprun: install SystemTap's runtime there";
  return host;
}

TEST(FleetSummary, SaysHowManyRanWhichAreSlowAndWhyTheOthersFailed) {
  const std::vector<HostOutcome> hosts{slow_host(), healthy_host(), failed_host()};
  EXPECT_EQ(fleet_summary_lines(hosts),
            (std::vector<std::string>{
                "fleet: 3 hosts, 2 ran, 1 failed", "  1 of 2 hosts that ran has a slow member:",
                "    root@db1: dm-0 (delay) 500.0x its siblings' mean latency, 50% of the slowest "
                "requests' time",
                "  failed: db3: has no staprun: install SystemTap's runtime there (status 2)"}));
  const std::vector<HostOutcome> healthy{healthy_host(), healthy_host()};
  EXPECT_EQ(fleet_summary_lines(healthy),
            (std::vector<std::string>{"fleet: 2 hosts, 2 ran",
                                      "  0 of 2 hosts that ran have a slow member"}));
}

TEST(FleetSummary, JsonHasEveryHostAndTheSummary) {
  HostOutcome text_only;
  text_only.target = "ssh://db4";
  text_only.output = "not json\n";
  const Json json = fleet_json("diagnose", {slow_host(), failed_host(), text_only});
  EXPECT_EQ(json["schema"], "iotap.fleet/1");
  EXPECT_EQ(json["verb"], "diagnose");
  ASSERT_EQ(json["hosts"].size(), 3U);
  EXPECT_EQ(json["hosts"][0]["error"], nullptr);
  EXPECT_EQ(json["hosts"][1]["error"],
            "has no staprun: install SystemTap's runtime there (status 2)");
  EXPECT_EQ(json["hosts"][2]["result"], "not json\n");
  EXPECT_EQ(json["summary"]["with_slow_member"], Json::array({"ssh://root@db1"}));
  EXPECT_EQ(json["summary"]["failed"], Json::array({"ssh://db3"}));
  EXPECT_EQ(json["summary"]["ran"], 2);
}

TEST(FleetSummary, ExitStatusIsEveryonesOrTargetLost) {
  EXPECT_EQ(fleet_exit_status({slow_host(), healthy_host()}), 0);
  EXPECT_EQ(fleet_exit_status({slow_host(), failed_host()}), exit_status::kTargetLost);
  // issue 27: every host's run failed, each for its own reason: 4, as the help says, not the
  // hosts' 2.
  HostOutcome other = failed_host();
  other.target = "ssh://db4";
  other.last_error = "db4 has no staprun: install SystemTap's runtime there";
  EXPECT_EQ(fleet_exit_status({failed_host(), other}), exit_status::kTargetLost);
  // The same refusal from every host's run is the user's input: its own status.
  HostOutcome refused_a = failed_host();
  refused_a.last_error = "-c: program 'no-such' not found";
  HostOutcome refused_b = refused_a;
  refused_b.target = "ssh://db4";
  EXPECT_EQ(fleet_exit_status({refused_a, refused_b}), 2);
  // Every host ran, and the program failed alike on each: its status.
  HostOutcome program_failed = slow_host();
  program_failed.exit_status = 1;
  EXPECT_EQ(fleet_exit_status({program_failed, program_failed}), 1);
}

TEST(FleetSummary, FindsTheSshTargetsAmongAVerbsArguments) {
  const std::vector<std::string> args{"-c",       "x",  "--target", "ssh://a",  "--target=ssh://b",
                                      "--target", "vm", "--",       "--target", "ssh://c"};
  EXPECT_EQ(ssh_targets_in(args), (std::vector<std::string>{"ssh://a", "ssh://b"}));
}

}  // namespace
}  // namespace iotap::session
