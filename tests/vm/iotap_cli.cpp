#include "iotap_cli.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace iotap::test {

Captured run_iotap(const std::vector<std::string>& args, const std::string& tmpdir,
                   const std::vector<std::string>& extra_env) {
  std::vector<std::string> argv{IOTAP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  SpawnOptions options;
  options.extra_env = extra_env;
  options.extra_env.push_back("TMPDIR=" + tmpdir);
  // Inside ctest's 900 s: a run that hangs is stopped as Ctrl-C would stop it, and the test
  // fails printing what iotap said (its phases, the guest's blocked tasks), where ctest's
  // timeout would print nothing (a CI run once did, for a dd that never ended).
  options.time_limit = std::chrono::seconds(600);
  return capture(argv, options);
}

std::vector<std::vector<std::string>> lines_starting_with(const std::string& text,
                                                          const std::string& word) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    std::string field;
    while (words >> field) fields.push_back(field);
    if (!fields.empty() && fields[0] == word) out.push_back(fields);
  }
  return out;
}

int skipped_probes(const Captured& run) {
  static const std::regex kSkipped(R"(skipped probes: (\d+))");
  std::smatch match;
  return std::regex_search(run.err, match, kSkipped) ? std::stoi(match[1]) : 0;
}

void require_guest_tools() {
  // A vm test that cannot boot a guest fails; it never passes by skipping.
  ASSERT_FALSE(find_in_path("qemu-system-x86_64").empty())
      << "qemu-system-x86_64 is missing: run ./setup.sh";
  ASSERT_FALSE(find_in_path("stap").empty()) << "stap is missing: run ./setup.sh";
}

}  // namespace iotap::test
