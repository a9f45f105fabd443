// The runtime cases' check language (json_checks.h, text_checks.h) on made-up documents: what
// holds, what fails and says why, and that a check never passes on nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "json_checks.h"
#include "text_checks.h"

namespace iotap::runtime {
namespace {

using nlohmann::json;

const json kResult = json::parse(R"json({
  "devices": [
    {"name": "md0", "spec": "raid0(ram,delay(ram,20ms))", "parent": null, "ios": 64
},
    {"name": "ram0", "spec": "ram", "parent": "md0", "ios": 40, "errors": 0},
    {"name": "dm-0", "spec": "delay(ram,20ms)", "parent": "md0", "ios": 24, "errors": 0}
  ],
  "verdict": {"slow_members": [{"name": "dm-0", "spec": "delay(ram,20ms)"}], "reason": null},
  "loss": {"events_lost": 0, "skipped_probes": 2, "transport_failures": 0},
  "reasons": [{"reason": "Reading from file", "percent": 70, "stack": ["vfs_read", "x"]},
              {"reason": "Userspace lock contention", "percent": 30}],
  "calls": [{"function": "main", "calls": [{"function": "read", "calls": []},
                                            {"function": "f", "calls": [{"function": "read"}]}]}]
})json");

bool holds(const std::string& check) {
  return json_check_failures(check, kResult).empty();
}

TEST(JsonChecks, LiteralsPathsAndIndexes) {
  EXPECT_TRUE(holds("verdict.slow_members[0].spec == \"delay(ram,20ms)\""));
  EXPECT_TRUE(holds("verdict.reason == null"));
  EXPECT_TRUE(holds("devices[-1].name == \"dm-0\""));
  EXPECT_FALSE(holds("devices[0].ios == 65"));
  EXPECT_TRUE(holds("size(verdict.slow_members) == 1"));
  EXPECT_TRUE(holds("size(devices[0].name) == 3"));
}

TEST(JsonChecks, FiltersHoldForEveryValueTheySelect) {
  EXPECT_TRUE(holds("devices[parent=md0].errors == 0"));
  EXPECT_TRUE(holds("devices[parent=md0].ios > 20"));
  EXPECT_FALSE(holds("devices[parent=md0].ios > 30"));
  EXPECT_TRUE(holds("devices[parent=null].name == \"md0\""));
  EXPECT_TRUE(holds("devices[spec=delay(ram,20ms)].ios == 24"));
  EXPECT_TRUE(holds("devices[parent!=md0].name == \"md0\""));
  EXPECT_TRUE(holds("count(reasons[reason~\" contention$\"]) == 1"));
  const auto failures = json_check_failures("devices[parent=md0].ios > 30", kResult);
  ASSERT_EQ(failures.size(), 1U);
  EXPECT_EQ(failures[0], "devices[2].ios is 24, not > 30");
}

TEST(JsonChecks, NothingSelectedIsAFailure) {
  EXPECT_FALSE(holds("devices[parent=md9].ios > 0"));
  EXPECT_FALSE(holds("verdict.missing == null"));
  EXPECT_EQ(json_check_failures("devices[name=sdz].ios == 0", kResult),
            std::vector<std::string>{"the left side selects nothing in the document"});
}

TEST(JsonChecks, FunctionsAndArithmetic) {
  EXPECT_TRUE(holds("count(devices[parent=md0]) == 2"));
  EXPECT_TRUE(holds("sum(devices[parent=md0].ios) == devices[name=md0].ios"));
  EXPECT_TRUE(holds("sum(devices[parent=md9].ios) == 0"));
  EXPECT_TRUE(holds("max(devices[*].ios) == 64"));
  EXPECT_TRUE(holds("min(devices[*].ios) * 2 + 16 == devices[0].ios"));
  EXPECT_TRUE(holds("10 * reasons[0].percent >= 9 * (reasons[0].percent + 7)"));
  EXPECT_FALSE(holds("max(devices[parent=md9].ios) >= 0"));
  EXPECT_FALSE(holds("devices[*].ios + 1 > 0")) << "arithmetic takes one value";
}

TEST(JsonChecks, MembersDescendantsAndContains) {
  EXPECT_TRUE(holds("loss.*!skipped_probes == 0"));
  EXPECT_FALSE(holds("loss.* == 0"));
  EXPECT_TRUE(holds("count(calls[0].**[function=read]) == 2"));
  EXPECT_TRUE(holds("count(calls.**[function=main]) == 1"));
  EXPECT_TRUE(holds("reasons[0].stack contains \"vfs_read\""));
  EXPECT_TRUE(holds("reasons[0].reason contains \"from\""));
  EXPECT_TRUE(holds("reasons[1].reason matches \"^User.*contention$\""));
}

TEST(JsonChecks, SyntaxErrorsSayWhere) {
  EXPECT_THROW(parse_json_check("verdict.x"), CheckSyntaxError);
  EXPECT_THROW(parse_json_check("a ~= 1"), CheckSyntaxError);
  EXPECT_THROW(parse_json_check("devices[name=x.ios == 1"), CheckSyntaxError);
  EXPECT_THROW(parse_json_check("avg(devices[*].ios) == 1"), CheckSyntaxError);
  EXPECT_THROW(parse_json_check("a == 1 2"), CheckSyntaxError);
  EXPECT_NO_THROW(parse_json_check("count(a.**[b~\"x\"]) >= 1"));
}

TEST(TextChecks, HasLacksIsMatchAndLines) {
  const std::string out = "started\n0\nend probe ran\n";
  const auto holds_on = [&](const std::string& check) {
    return text_check_failures(check, "stdout", out).empty();
  };
  EXPECT_TRUE(holds_on("has end probe ran\\n"));
  EXPECT_FALSE(holds_on("has nothing like this"));
  EXPECT_TRUE(holds_on("lacks nothing like this"));
  EXPECT_TRUE(holds_on("is started\\n0\\nend probe ran\\n"));
  EXPECT_FALSE(holds_on("is started"));
  EXPECT_TRUE(holds_on("match ^started\\n[0-9]+\\n"));
  EXPECT_TRUE(holds_on("no-match probe hit report"));
  EXPECT_TRUE(holds_on("lines [-0-9]+ == 1"));
  EXPECT_TRUE(holds_on("lines .* probe .* >= 0"));
  EXPECT_FALSE(holds_on("lines [a-z]+ == 2"));
  EXPECT_EQ(text_check_failures("lines [a-z]+ == 2", "stdout", out),
            std::vector<std::string>{"stdout fails 'lines [a-z]+ == 2' (1 lines match)"});
  EXPECT_THROW(parse_text_check("contains x"), CheckSyntaxError);
  EXPECT_THROW(parse_text_check("lines x"), CheckSyntaxError);
  EXPECT_THROW(parse_text_check("match ("), CheckSyntaxError);
  EXPECT_EQ(unescaped("a\\nb\\\\n\\x1b["), "a\nb\\n\x1b[");
}

}  // namespace
}  // namespace iotap::runtime
