#include "iotap/util/printable.h"

namespace iotap {

namespace {

// The length of the UTF-8 sequence at `at`, or 0 when it is not a valid one (overlong forms,
// surrogates and code points past U+10FFFF included).
size_t utf8_length(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;  // the second byte's range, narrower after some leads
  unsigned char high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto byte = static_cast<unsigned char>(text[at + i]);
    if (byte < (i == 1 ? low : 0x80) || byte > (i == 1 ? high : 0xbf)) return 0;
  }
  return length;
}

}  // namespace

size_t character_bytes(std::string_view text, size_t at) {
  const size_t length = utf8_length(text, at);
  return length == 0 ? 1 : length;
}

std::string escaped(std::string_view text) {
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const size_t length = utf8_length(text, at);
    if (length > 1 || (byte >= 0x20 && byte < 0x7f)) {
      out.append(text.substr(at, length));
      at += length;
      continue;
    }
    if (byte == '\t') {
      out += "\\t";
    } else if (byte == '\r') {
      out += "\\r";
    } else if (byte == '\n') {
      out += "\\n";
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
    ++at;
  }
  return out;
}

}  // namespace iotap
