// An attribution read back from a file (iotap report, iotap compare) is checked before it is drawn
// or compared (report/attribution_check.h): the hostile inputs of issue 27 (tests/unit/data/
// attribution/) are refused naming the file and the field, and every single-field change of a
// valid attribution is either refused so or drawn and compared without a crash or an exception.
#include "iotap/report/attribution_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "iotap/compare/compare.h"
#include "iotap/report/html.h"
#include "iotap/util/error.h"

namespace iotap::report {
namespace {

const std::string kData = ATTRIBUTION_DATA_DIR;

Json load(const std::string& name) {
  std::ifstream in(kData + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

// The message check_attribution throws, or "" when it accepts.
std::string refusal(const Json& doc, const std::string& file = "a.json") {
  try {
    check_attribution(doc, file);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(AttributionCheck, AnAttributionAsIotapWritesItPasses) {
  const Json doc = load("valid.json");
  EXPECT_EQ(refusal(doc), "");
  const std::string page = html(doc, "valid.json");
  EXPECT_NE(page.find("Slow member: dm-0"), std::string::npos);
}

// Issue 27's crashes (SIGSEGV on {}, a 6 GB allocation for to_us -1) and internal errors.
TEST(AttributionCheck, TheInputsThatCrashedAreRefusedNamingTheFileAndTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"device_empty.json", "a.json: devices[0].name: missing (expected a string)"},
      {"device_without_name.json", "a.json: devices[1].name: missing (expected a string)"},
      {"devices_string.json", "a.json: devices: expected an array, found a string"},
      {"layer_empty.json", "a.json: layers[0].name: missing (expected a string)"},
      {"slowest_empty.json",
       "a.json: slowest[0].request: missing (expected a whole number, 0 or "
       "more)"},
      {"slow_member_empty.json",
       "a.json: verdict.slow_members[0].name: missing (expected a string)"},
      {"histogram_to_us_negative.json",
       "a.json: requests.latency_us.histogram[0].to_us: expected a whole number, 0 or more, "
       "found -1"},
      {"requests_null.json", "a.json: requests: expected an object, found null"},
      {"schema_null.json",
       "a.json is not an iotap attribution (the --json of iotap attribute, diagnose or replay, "
       "schema iotap.attribution/3 or iotap.attribution/2)"},
  };
  for (const auto& [file, message] : cases) EXPECT_EQ(refusal(load(file)), message) << file;
}

TEST(AttributionCheck, HistogramBoundsThatWouldOverflowTheAxisAreRefused) {
  Json doc = load("valid.json");
  Json& bucket = doc["devices"][2]["latency_us"]["histogram"][0];
  bucket["to_us"] = kMaxHistogramBoundUs;  // the highest bound drawn: 63 buckets at most
  EXPECT_EQ(refusal(doc), "");
  EXPECT_NE(html(doc, "t").find("</html>"), std::string::npos);
  bucket["to_us"] = UINT64_MAX;
  EXPECT_EQ(refusal(doc),
            "a.json: devices[2].latency_us.histogram[0].to_us: expected at most 2^62 "
            "microseconds, found 18446744073709551615");
  bucket["to_us"] = 1024;
  EXPECT_EQ(refusal(doc),
            "a.json: devices[2].latency_us.histogram[0].to_us: expected more than from_us "
            "(32768), found 1024");
}

TEST(AttributionCheck, ADeviceNamedTwiceIsRefused) {
  Json doc = load("valid.json");
  doc["devices"][2]["name"] = "ram0";
  EXPECT_EQ(refusal(doc),
            "a.json: devices[2].name: 'ram0' again (devices[1] has it): each device is named once");
}

// Every path to a value in the document.
void paths(const Json& value, const Json::json_pointer& at, std::vector<Json::json_pointer>& out) {
  out.push_back(at);
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) paths(member, at / key, out);
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) paths(value[i], at / i, out);
  }
}

// What issue 27 found by hand, swept: every value of a valid attribution replaced, or removed, one
// at a time. Each result is refused with a message naming the file, or it is drawn as a page and
// compared with the original, with no exception (before: type errors, exit 70, and crashes).
TEST(AttributionCheck, EverySingleFieldChangeIsRefusedOrDrawnAndCompared) {
  const Json valid = load("valid.json");
  std::vector<Json::json_pointer> all;
  paths(valid, Json::json_pointer(), all);
  const std::vector<Json> replacements = {nullptr,        "x",           -1,   1.5,
                                          Json::object(), Json::array(), true, UINT64_MAX};
  size_t refused = 0;
  size_t drawn = 0;
  for (const auto& path : all) {
    if (path.empty()) continue;
    std::vector<Json> changed;
    for (const Json& replacement : replacements) {
      Json doc = valid;
      doc[path] = replacement;
      changed.push_back(std::move(doc));
    }
    Json removed = valid;
    Json& parent = removed[path.parent_pointer()];
    if (parent.is_object()) {
      parent.erase(path.back());
    } else {
      parent.erase(std::stoul(path.back()));
    }
    changed.push_back(std::move(removed));
    for (const Json& doc : changed) {
      const std::string message = refusal(doc);
      if (!message.empty()) {
        EXPECT_TRUE(message.starts_with("a.json")) << message;
        ++refused;
        continue;
      }
      ++drawn;
      EXPECT_NO_THROW({
        EXPECT_NE(html(doc, "changed").find("</html>"), std::string::npos);
        const Json comparison = compare::compare(valid, "a.json", doc, "b.json");
        EXPECT_FALSE(compare::compare_text(comparison).empty());
        EXPECT_FALSE(
            compare::compare_text(compare::compare(doc, "b.json", valid, "a.json")).empty());
      }) << path.to_string()
         << " = " << doc.dump().substr(0, 200);
    }
  }
  EXPECT_GT(all.size(), 200U);
  EXPECT_GT(refused, 500U);
  EXPECT_GT(drawn, 500U);
}

}  // namespace
}  // namespace iotap::report
