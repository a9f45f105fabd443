#pragma once
// Small file helpers whose errors are UserErrors naming the file.
#include <string>
#include <string_view>
#include <vector>

namespace iotap {

std::string read_file(const std::string& path);
void write_file(const std::string& path, std::string_view content, unsigned mode = 0644);
bool is_executable_file(const std::string& path);
// Every regular file under `dir`, relative to it, sorted: a fixed order to hash them in. Empty
// when `dir` cannot be read; subdirectories that cannot be read are left out.
std::vector<std::string> files_under(const std::string& dir);

}  // namespace iotap
