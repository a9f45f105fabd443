#include "iotap/session/program_output.h"

#include <cstdio>
#include <filesystem>

#include "iotap/session/traced_program.h"

namespace iotap::session {

std::string program_output_prefix(std::string_view program_path) {
  const std::string name = std::filesystem::path(program_path).filename().string();
  return "[" + (name.empty() ? std::string("program") : name) + "] ";
}

void print_program_line(const std::string& prefix, std::string_view line) {
  if (line.ends_with('\n')) line.remove_suffix(1);
  std::fprintf(stderr, "%s%.*s\n", prefix.c_str(), static_cast<int>(line.size()), line.data());
}

std::function<void(std::string_view)> program_line_printer(const TargetOptions& options) {
  return [prefix = program_output_prefix(traced_program(options))](std::string_view line) {
    print_program_line(prefix, line);
  };
}

}  // namespace iotap::session
