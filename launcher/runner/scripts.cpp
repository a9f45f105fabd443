#include "iotap/runner/scripts.h"

#include <filesystem>

#include "iotap/util/data_paths.h"

namespace iotap::runner {

std::string device_lines_script() {
  return (std::filesystem::path(data_paths().runner_scripts) / "device_lines.sh").string();
}

std::string staprun_script() {
  return (std::filesystem::path(data_paths().runner_scripts) / "staprun.sh").string();
}

}  // namespace iotap::runner
