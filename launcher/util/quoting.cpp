#include "util/quoting.h"

namespace iotap {

std::string single_quoted(std::string_view word) {
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
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
