#pragma once
// Small file helpers whose errors are UserErrors naming the file.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iotap {

std::string read_file(const std::string& path);

// An input the user names (an attribution, a recording): the whole of `path`, which must be a
// regular file of at most `max_bytes`. Anything else is refused in one line before it is read,
// saying what it is and what was expected (`what`: "an attribution"): a FIFO would block the read
// until a writer came, /dev/zero would never end, a directory has no text. A stop signal while
// it is read throws Stopped.
std::string read_input_file(const std::string& path, std::string_view what, uint64_t max_bytes);

// "256 MiB", "1.5 GiB": a size as a person reads it in a message.
std::string size_text(uint64_t bytes);
void write_file(const std::string& path, std::string_view content, unsigned mode = 0644);
bool is_executable_file(const std::string& path);
// Every regular file under `dir`, relative to it, sorted: a fixed order to hash them in. Empty
// when `dir` cannot be read; subdirectories that cannot be read are left out.
std::vector<std::string> files_under(const std::string& dir);

}  // namespace iotap
