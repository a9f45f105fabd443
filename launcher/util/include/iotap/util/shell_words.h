#pragma once
// -c's text cut into words by the shell's quoting rules (POSIX sh, "Quoting"), and nothing
// else: no variables, no command substitution, no globs, no ~, no redirection. `$HOME`, `*` and
// `>` reach the program as those characters. wordexp(3) would cut the same way but expands;
// boost::program_options::split_unix treats ' and " as the same quote and escapes inside '...'.
#include <string>
#include <string_view>
#include <vector>

namespace iotap {

// Throws UserError naming the column of a quote that is never closed, or of a backslash that
// ends the text.
std::vector<std::string> split_shell_words(std::string_view text);

}  // namespace iotap
