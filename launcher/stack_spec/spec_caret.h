#pragma once
// Pointing at a place in a --stack spec for an error message: the spec on one line and a caret
// under the offending character. Columns count characters (UTF-8 code points), not bytes, so
// the caret sits under the right character whatever the user typed; a long spec is shown as
// the part around the caret.
#include <string>
#include <string_view>

namespace iotap::stack_spec {

// " at column N:\n    SPEC\n    ^" for the byte offset `at` of `text` (at == text.size() points
// just past the end). Blanks such as tabs and newlines show as spaces, bytes that are not
// UTF-8 as '?', so the two lines stay aligned.
std::string caret_under(std::string_view text, size_t at);

// The character starting at byte `at` as the user wrote it, for "unexpected ...": a whole
// UTF-8 sequence ("character 'é'"), or a byte that is not UTF-8 or not printable by its value
// ("byte 0xc3").
std::string describe_character(std::string_view text, size_t at);

// The number of bytes of the UTF-8 sequence starting at `at`, or 0 when it is not valid UTF-8.
size_t utf8_sequence_length(std::string_view text, size_t at);

}  // namespace iotap::stack_spec
