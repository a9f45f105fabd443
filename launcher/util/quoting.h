#pragma once
// staprun takes its -c command as one string and splits it with wordexp(3); the guest's stack
// script is read by sh. Single quotes make both give back exactly the words iotap meant.
#include <string>
#include <string_view>
#include <vector>

namespace iotap {

// `word` in single quotes, with each ' written as '\''.
std::string single_quoted(std::string_view word);

// The words, each single-quoted, joined by spaces.
std::string quoted_command(const std::vector<std::string>& argv);

}  // namespace iotap
