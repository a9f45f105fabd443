#include "spec_caret.h"

#include <algorithm>

namespace iotap::stack_spec {
namespace {

// A spec longer than this many characters is shown as the part around the caret.
constexpr size_t kWidestShown = 100;
constexpr size_t kShownBefore = 60;

// The bytes of the character starting at `at`: a whole UTF-8 sequence, or 1 for a byte that
// is not one.
size_t character_length(std::string_view text, size_t at) {
  const size_t length = utf8_sequence_length(text, at);
  return length == 0 ? 1 : length;
}

// The character at `at` as the message shows it.
void show_character(std::string_view text, size_t at, std::string& line) {
  const auto byte = static_cast<unsigned char>(text[at]);
  const size_t length = utf8_sequence_length(text, at);
  if (length == 0) {
    line += '?';
  } else if (byte < 0x20 || byte == 0x7f) {
    line += ' ';  // a tab or newline would break the caret line's alignment
  } else {
    line.append(text.substr(at, length));
  }
}

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((static_cast<unsigned char>(text[at + i]) & 0xc0) != 0x80) return 0;
  }
  return length;
}

std::string describe_character(std::string_view text, size_t at) {
  const auto byte = static_cast<unsigned char>(text[at]);
  const size_t length = utf8_sequence_length(text, at);
  if (length == 0 || byte < 0x20 || byte == 0x7f) {
    constexpr std::string_view kDigits = "0123456789abcdef";
    return std::string("byte 0x") + kDigits[byte >> 4] + kDigits[byte & 0xf];
  }
  return "character '" + std::string(text.substr(at, length)) + "'";
}

std::string caret_under(std::string_view text, size_t at) {
  size_t column = 0;  // 0-based, in characters
  size_t characters = 0;
  for (size_t i = 0; i < text.size(); i += character_length(text, i)) {
    if (i < at) ++column;
    ++characters;
  }
  size_t first = 0;
  size_t last = characters;
  if (characters > kWidestShown) {
    first = column > kShownBefore ? column - kShownBefore : 0;
    last = std::min(characters, first + kWidestShown);
  }
  std::string line = first > 0 ? "..." : "";
  const size_t caret = line.size() + (column - first);
  size_t index = 0;
  for (size_t i = 0; i < text.size() && index < last; i += character_length(text, i), ++index) {
    if (index >= first) show_character(text, i, line);
  }
  if (last < characters) line += "...";
  return " at column " + std::to_string(column + 1) + ":\n    " + line + "\n    " +
         std::string(caret, ' ') + "^";
}

}  // namespace iotap::stack_spec
