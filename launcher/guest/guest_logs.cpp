#include "guest_logs.h"

#include <deque>
#include <fstream>

namespace iotap::guest {

std::string last_lines(const std::string& path, size_t count) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& kept : lines) out += "    " + kept + "\n";
  return out;
}

}  // namespace iotap::guest
