#include "runtime_case.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iotap/util/error.h"
#include "iotap/util/shell_words.h"
#include "json_checks.h"
#include "text_checks.h"

namespace iotap::runtime {
namespace {

namespace fs = std::filesystem;

// The files a case may have. Any other file without a '.' in its name is a misspelling of one;
// files with one (my.stp) are the case's own data.
// `timeout`, `labels` and `kernels` are read by CMake (tests/runtime/CMakeLists.txt).
constexpr std::array<const char*, 11> kFiles{"command", "stack",  "env",    "exit",
                                             "stdout",  "stderr", "json",   "requires",
                                             "timeout", "labels", "kernels"};

std::string with_placeholders(std::string text, const Placeholders& placeholders) {
  for (const auto& [name, value] : placeholders) {
    const std::string mark = "{" + name + "}";
    for (size_t at = text.find(mark); at != std::string::npos;
         at = text.find(mark, at + value.size()))
      text.replace(at, mark.size(), value);
  }
  return text;
}

// The file's lines that say something: not empty, not a # comment; placeholders replaced.
std::vector<CheckLine> lines_of(const std::string& dir, const std::string& name,
                                const Placeholders& placeholders) {
  std::vector<CheckLine> lines;
  std::ifstream in(dir + "/" + name);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty() || line.starts_with("#")) continue;
    lines.push_back({name + ":" + std::to_string(number), with_placeholders(line, placeholders)});
  }
  return lines;
}

bool has_file(const std::string& dir, const std::string& name) {
  return fs::is_regular_file(dir + "/" + name);
}

int number_in(const std::string& dir, const std::string& name, int otherwise) {
  if (!has_file(dir, name)) return otherwise;
  const auto lines = lines_of(dir, name, {});
  if (lines.size() != 1 || lines[0].text.empty() ||
      lines[0].text.find_first_not_of("0123456789") != std::string::npos)
    throw CaseError(dir + "/" + name + ": expected one whole number");
  return std::stoi(lines[0].text);
}

void check_requirement(const std::string& dir, const CheckLine& line) {
  std::istringstream words(line.text);
  std::string kind;
  std::string what;
  words >> kind >> what;
  if (kind == "debuginfo" && what.empty()) return;
  if ((kind == "program" || kind == "kernel") && !what.empty()) return;
  throw CaseError(dir + "/" + line.where +
                  ": expected 'debuginfo', 'program NAME' or 'kernel RELEASE': " + line.text);
}

}  // namespace

RuntimeCase read_case(const std::string& dir, Placeholders placeholders) {
  if (!has_file(dir, "command")) throw CaseError(dir + ": no command file");
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find('.') == std::string::npos &&
        std::find(kFiles.begin(), kFiles.end(), name) == kFiles.end())
      throw CaseError(entry.path().string() + ": not a file a case has (tests/README.md)");
  }
  fs::path absolute = fs::absolute(dir).lexically_normal();
  if (absolute.filename().empty()) absolute = absolute.parent_path();  // "AREA/CASE/"
  placeholders["case"] = absolute.string();
  placeholders["area"] = absolute.parent_path().string();
  RuntimeCase c;
  c.dir = dir;
  std::string command;
  for (const auto& line : lines_of(dir, "command", placeholders)) command += line.text + " ";
  try {
    c.args = split_shell_words(command);
  } catch (const UserError& e) {
    throw CaseError(dir + "/command: " + e.what());
  }
  if (c.args.empty()) throw CaseError(dir + "/command: no arguments");
  if (has_file(dir, "stack")) {
    const auto stack = lines_of(dir, "stack", placeholders);
    if (stack.size() != 1) throw CaseError(dir + "/stack: expected one line, the --stack spec");
    // Before a `--`, whose words are the script's.
    const auto end = std::find(c.args.begin(), c.args.end(), "--");
    c.args.insert(c.args.insert(end, stack[0].text), "--stack");
  }
  for (const auto& line : lines_of(dir, "env", placeholders)) {
    if (line.text.find('=') == std::string::npos || line.text.starts_with("="))
      throw CaseError(dir + "/" + line.where + ": expected NAME=value: " + line.text);
    c.env.push_back(line.text);
  }
  c.exit_status = number_in(dir, "exit", 0);
  (void)number_in(dir, "timeout", 0);
  c.stdout_checks = lines_of(dir, "stdout", placeholders);
  c.stderr_checks = lines_of(dir, "stderr", placeholders);
  c.json_checks = lines_of(dir, "json", placeholders);
  c.requirements = lines_of(dir, "requires", placeholders);
  const auto parse_each = [&](const std::vector<CheckLine>& lines, auto parse) {
    for (const auto& line : lines) {
      try {
        parse(line.text);
      } catch (const CheckSyntaxError& e) {
        throw CaseError(dir + "/" + line.where + ": " + e.what());
      }
    }
  };
  parse_each(c.stdout_checks, parse_text_check);
  parse_each(c.stderr_checks, parse_text_check);
  parse_each(c.json_checks, parse_json_check);
  for (const auto& line : c.requirements) check_requirement(dir, line);
  return c;
}

}  // namespace iotap::runtime
