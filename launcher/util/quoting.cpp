#include "iotap/util/quoting.h"

namespace iotap {

std::string single_quoted(std::string_view word) {
  if (word.empty()) return "''";
  std::string out;
  while (!word.empty()) {
    const size_t quote = word.find('\'');
    const std::string_view run = word.substr(0, quote);
    if (!run.empty()) out.append("'").append(run).append("'");
    if (quote == std::string_view::npos) break;
    out += "\\'";
    word.remove_prefix(quote + 1);
  }
  return out;
}

std::string quoted_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& word : argv) {
    if (!command.empty()) command += ' ';
    command += single_quoted(word);
  }
  return command;
}

}  // namespace iotap
