#pragma once
// Small file helpers whose errors are UserErrors naming the file.
#include <string>
#include <string_view>

namespace iotap {

std::string read_file(const std::string& path);
void write_file(const std::string& path, std::string_view content, unsigned mode = 0644);
bool is_executable_file(const std::string& path);

}  // namespace iotap
