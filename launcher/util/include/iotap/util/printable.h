#pragma once
// Text from the user or a file, as a one-line message shows it: a byte that is not UTF-8 or a
// control byte would reach the terminal as it is (a lone 0xff printed as a broken character, a
// CR that hides what came before it), so those are written as escapes.
#include <string>
#include <string_view>

namespace iotap {

// `text` with printable ASCII and whole UTF-8 sequences as they are, \t \r \n as such, and any
// other byte (a control byte, DEL, a byte that is not UTF-8) as \xHH.
std::string escaped(std::string_view text);

// The bytes of the character at `at`: its whole UTF-8 sequence, or 1 for a byte that is not one.
size_t character_bytes(std::string_view text, size_t at);

}  // namespace iotap
