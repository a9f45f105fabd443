// The HTML report of a recorded guest run, opened in headless Chromium (Debian's chromium): the
// page loads with nothing on the console, the browser's DOM holds the verdict with the slow
// member's name and a histogram per device that had ios, and a screenshot of it is an image.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "iotap/engine.h"
#include "iotap/report.h"
#include "iotap/report/html.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"
#include "trace_file.h"

namespace iotap::golden {
namespace {

const std::string kDir = GOLDEN_DIR;

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Chromium as a test drives it: headless, no sandbox (CI runs as root), its console on stderr,
// a profile of its own in `dir` so that nothing is left in the user's home.
std::vector<std::string> chromium(const TempDir& dir, std::vector<std::string> args) {
  std::vector<std::string> argv{"chromium",
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--no-first-run",
                                "--user-data-dir=" + (dir / "profile"),
                                "--enable-logging=stderr",
                                "--v=0"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// What the page logged on Chromium's console: its ":CONSOLE" lines (Chromium 156 writes
// `[pid:tid:time:INFO:CONSOLE:1] "message", source: file:///... (1)`; older ones CONSOLE(1)).
std::string console_lines(const std::string& err) {
  std::istringstream lines(err);
  std::string out;
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos) out += line + "\n";
  return out;
}

TEST(HtmlInChromium, TheIncidentLoadsCleanWithAHistogramPerDeviceAndTheSlowMember) {
  ASSERT_FALSE(find_in_path("chromium").empty()) << "chromium is missing: run ./setup.sh";
  const Trace trace = load_trace(kDir + "/traces/incident.json");
  engine::Options options;
  options.slowest = 3;
  const nlohmann::ordered_json json = report::json(run_trace(trace, options, 65536));
  const TempDir dir("iotap-html-test");
  const std::string page = dir / "incident.html";
  std::ofstream(page) << report::html(json, "incident.json");
  const std::string url = "file://" + page;

  const Captured dom = capture(chromium(dir, {"--dump-dom", url}));
  ASSERT_TRUE(dom.status.ok()) << dom.err;
  EXPECT_EQ(console_lines(dom.err), "") << "the page logged on the console";
  // The DOM as the browser built it: the verdict names the slow member ...
  ASSERT_EQ(json["verdict"]["slow_members"].size(), 1U);
  const std::string slow = json["verdict"]["slow_members"][0]["name"];
  EXPECT_NE(dom.out.find("<p class=\"headline\">Slow member: " + slow), std::string::npos)
      << dom.out;
  EXPECT_NE(dom.out.find("<span class=\"node slow\" data-device=\"" + slow + "\">"),
            std::string::npos);
  // ... and every device with ios has its histogram, an SVG with a bar per non-empty bucket.
  size_t with_ios = 0;
  for (const auto& device : json["devices"]) {
    if (device["ios"] == 0) continue;
    ++with_ios;
    const std::string name = device["name"];
    const size_t figure = dom.out.find("data-device=\"" + name + "\"><figcaption>");
    ASSERT_NE(figure, std::string::npos) << "no histogram for " << name;
    const std::string chart = dom.out.substr(figure, dom.out.find("</figure>", figure) - figure);
    size_t buckets = 0;
    for (const auto& bucket : device["latency_us"]["histogram"]) buckets += bucket["count"] > 0;
    EXPECT_EQ(occurrences(chart, "<rect "), buckets) << name << ":\n" << chart;
  }
  EXPECT_EQ(occurrences(dom.out, "<figure class=\"histogram device"), with_ios);
  EXPECT_GE(with_ios, 9U) << "the incident's md0 and eight members";

  const std::string shot = dir / "incident.png";
  const Captured screenshot =
      capture(chromium(dir, {"--screenshot=" + shot, "--window-size=1000,1400", url}));
  ASSERT_TRUE(screenshot.status.ok()) << screenshot.err;
  EXPECT_EQ(console_lines(screenshot.err), "");
  ASSERT_TRUE(std::filesystem::exists(shot)) << screenshot.err;
  std::ifstream png(shot, std::ios::binary);
  std::string signature(8, '\0');
  png.read(signature.data(), 8);
  EXPECT_EQ(signature, "\x89PNG\r\n\x1a\n");
  // A blank 1000x1400 page compresses to a few KB; this one has text and charts on it.
  EXPECT_GT(std::filesystem::file_size(shot), 40'000U);
}

}  // namespace
}  // namespace iotap::golden
