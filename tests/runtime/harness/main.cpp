// runtime_case: runs one runtime case (tests/README.md) on the vm tier's shared guests, as the
// gtest vm cases run theirs: iotap with TMPDIR at a private directory, the guest ctest allocated
// (guest_lane.cpp), every check of the case's files, and nothing left in TMPDIR.
//   runtime_case CASE_DIR      exit 0 passed, 1 failed, 77 skipped (a case for another kernel)
//   runtime_case --lint ROOT   reads every case under ROOT (ROOT/AREA/CASE), runs nothing
// A case that does not read, or whose requirements this machine does not meet, fails: it never
// passes having checked nothing.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/temp_dir.h"
#include "json_checks.h"
#include "runtime_case.h"
#include "text_checks.h"

namespace iotap::runtime {
namespace {

namespace fs = std::filesystem;

constexpr int kFailed = 1;
constexpr int kBadCase = 2;
constexpr int kSkipped = 77;  // ctest's SKIP_RETURN_CODE for these tests

// The kernel the case's guest boots: the build's, or the one a second-kernel registration of the
// case names (IOTAP_GUEST_KERNEL, a full release: tests/runtime/CMakeLists.txt).
std::string guest_kernel() {
  const char* env = std::getenv("IOTAP_GUEST_KERNEL");
  return env != nullptr && *env != '\0' ? env : GUEST_KERNEL;
}

Placeholders placeholders() {
  return {{"tests", TESTS_DIR}, {"examples", EXAMPLES_DIR}, {"guest_kernel", guest_kernel()}};
}

// Why this machine cannot run the case (empty: it can); a case for another kernel is skipped.
std::string unmet(const RuntimeCase& c, bool& skip) {
  for (const char* tool : {"qemu-system-x86_64", "stap"})
    if (find_in_path(tool).empty()) return std::string(tool) + " is missing: run ./setup.sh";
  for (const auto& line : c.requirements) {
    const size_t space = line.text.find(' ');
    const std::string kind = line.text.substr(0, space);
    const std::string what = space == std::string::npos ? "" : line.text.substr(space + 1);
    if (kind == "program" && find_in_path(what).empty())
      return what + " is missing (" + line.where + "): run ./setup.sh";
    const std::string release = guest_kernel();
    // A prefix ends where a version component does: a case for 6.1 is not for 6.12.
    const bool for_this_kernel =
        release.starts_with(what) &&
        (release.size() == what.size() ||
         std::string(".-+~").find(release[what.size()]) != std::string::npos);
    if (kind == "kernel" && !for_this_kernel) {
      skip = true;
      return "the case is for kernel " + what + "; its guest runs " + guest_kernel();
    }
    if (kind == "debuginfo") {
      const Captured version = capture({IOTAP_BINARY, "--version"});
      if (version.out.find("debuginfo:    /") == std::string::npos)
        return "the case needs the guest kernel's -dbg package (./setup.sh installs it); iotap "
               "--version says:\n" +
               version.out;
    }
  }
  return "";
}

std::vector<std::string> failures_of(const RuntimeCase& c, const Captured& run) {
  std::vector<std::string> failures;
  if (run.status.code != c.exit_status)
    failures.push_back("exit status " + std::to_string(run.status.code) + ", expected " +
                       std::to_string(c.exit_status) + " (exit)");
  const auto add = [&](const CheckLine& line, const std::vector<std::string>& found) {
    for (const auto& f : found) failures.push_back(line.where + ": " + f);
  };
  for (const auto& line : c.stdout_checks)
    add(line, text_check_failures(line.text, "stdout", run.out));
  for (const auto& line : c.stderr_checks)
    add(line, text_check_failures(line.text, "stderr", run.err));
  if (!c.json_checks.empty()) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(run.out);
    } catch (const nlohmann::json::exception& e) {
      failures.push_back(std::string("stdout is not one JSON document (json): ") + e.what());
      return failures;
    }
    for (const auto& line : c.json_checks) add(line, json_check_failures(line.text, doc));
  }
  return failures;
}

int run_case(const std::string& dir) {
  const RuntimeCase c = read_case(dir, placeholders());
  bool skip = false;
  if (const std::string why = unmet(c, skip); !why.empty()) {
    std::fprintf(stderr, "%s: %s\n", dir.c_str(), why.c_str());
    return skip ? kSkipped : kFailed;
  }
  std::vector<std::string> argv{IOTAP_BINARY};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  std::printf("iotap %s\n", quoted_command(c.args).c_str());
  std::vector<std::string> failures;
  {
    const TempDir tmp("iotap-runtime-case");
    SpawnOptions options;
    options.extra_env = c.env;
    options.extra_env.push_back("TMPDIR=" + tmp.path());
    // Inside ctest's default 900 s: a hung run is stopped as Ctrl-C would stop it, and the case
    // fails printing what iotap said, where ctest's own timeout would print nothing.
    options.time_limit = std::chrono::seconds(600);
    const Captured run = capture(argv, options);
    failures = failures_of(c, run);
    // Nothing left behind: every temp file and socket iotap made is gone.
    for (const auto& entry : fs::directory_iterator(tmp.path()))
      failures.push_back("iotap left " + entry.path().string() + " in its TMPDIR");
    // The failures first and again last: a log cut in the middle (CI keeps the head and the
    // tail of a long one) still says why, whatever iotap printed between them.
    for (const auto& f : failures) std::printf("FAILED %s\n", f.c_str());
    if (!failures.empty())
      std::printf("exit status %d\n--- stdout ---\n%s\n--- stderr ---\n%s\n", run.status.code,
                  run.out.c_str(), run.err.c_str());
  }
  for (const auto& f : failures) std::printf("FAILED %s\n", f.c_str());
  const size_t checks = 1 + c.stdout_checks.size() + c.stderr_checks.size() + c.json_checks.size();
  std::printf("%s: %zu checks, %zu failures\n", dir.c_str(), checks, failures.size());
  return failures.empty() ? 0 : kFailed;
}

int lint(const std::string& root) {
  int cases = 0;
  int bad = 0;
  for (const auto& area : fs::directory_iterator(root)) {
    if (!area.is_directory()) continue;
    for (const auto& dir : fs::directory_iterator(area.path())) {
      if (!dir.is_directory()) continue;
      ++cases;
      try {
        (void)read_case(dir.path().string(), placeholders());
      } catch (const CaseError& e) {
        ++bad;
        std::printf("%s\n", e.what());
      }
    }
  }
  std::printf("%d runtime cases under %s, %d that do not read\n", cases, root.c_str(), bad);
  return bad == 0 && cases > 0 ? 0 : kFailed;
}

}  // namespace
}  // namespace iotap::runtime

int main(int argc, char** argv) {
  using namespace iotap::runtime;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 2 && args[0] == "--lint") return lint(args[1]);
    if (args.size() == 1) return run_case(args[0]);
  } catch (const CaseError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kBadCase;
  }
  std::fprintf(stderr, "usage: runtime_case CASE_DIR | runtime_case --lint ROOT\n");
  return kBadCase;
}
