#pragma once
// staprun takes its -c command as one string and splits it with wordexp(3); the guest's stack
// script is read by sh. The quoting here makes both give back exactly the words iotap meant.
#include <string>
#include <string_view>
#include <vector>

namespace iotap {

// `word` quoted for sh and wordexp(3): its runs without ' in single quotes, each ' as \'.
// An empty word is ''. (Not '\'' inside one pair of quotes: glibc's wordexp cuts ''\''x' in
// two, "" and "'x", so a word that starts with ' would reach the program split.)
std::string single_quoted(std::string_view word);

// The words, each quoted as above, joined by spaces.
std::string quoted_command(const std::vector<std::string>& argv);

}  // namespace iotap
