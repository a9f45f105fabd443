#include "iotap/util/shell_words.h"

#include <optional>

#include "iotap/util/error.h"

namespace iotap {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

// Inside "...", a backslash escapes only these; before anything else it is itself.
bool escapable_in_double_quotes(char c) {
  return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n';
}

std::string column(size_t at) {
  return "column " + std::to_string(at + 1);
}

}  // namespace

std::vector<std::string> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::optional<std::string> word;  // set once the word has begun, even by an empty ''
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_blank(c)) {
      if (word) words.push_back(std::move(*word));
      word.reset();
      continue;
    }
    if (!word) word.emplace();
    if (c == '\\') {
      if (i + 1 == text.size())
        throw UserError("a backslash ends the text (" + column(i) +
                        "): remove it, or write \\\\ for a backslash");
      ++i;
      if (text[i] != '\n') *word += text[i];  // backslash-newline joins lines
    } else if (c == '\'') {
      const size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos)
        throw UserError("the ' at " + column(i) +
                        " is never closed: close it, or write a literal ' as \\' outside quotes");
      *word += text.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      const size_t open = i;
      for (++i;; ++i) {
        if (i == text.size())
          throw UserError("the \" at " + column(open) +
                          R"( is never closed: close it, or write a literal " as \")");
        if (text[i] == '"') break;
        if (text[i] == '\\' && i + 1 < text.size() && escapable_in_double_quotes(text[i + 1])) {
          ++i;
          if (text[i] != '\n') *word += text[i];
        } else {
          *word += text[i];
        }
      }
    } else {
      *word += c;
    }
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

}  // namespace iotap
