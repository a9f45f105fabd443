#include "iotap/util/data_paths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "iotap/config.h"

namespace iotap {

namespace fs = std::filesystem;

DataPaths data_paths_for(const std::string& executable, const std::string& cache_home) {
  const fs::path prefix = fs::path(executable).parent_path().parent_path();
  const fs::path share = prefix / "share" / "iotap";
  std::error_code error;
  if (!prefix.empty() && fs::is_directory(share / "tapsets", error)) {
    return {.installed = true,
            .tapsets = share / "tapsets",
            .examples = share / "examples",
            .providers = share / "providers",
            .guest_init = share / "guest" / "init.sh",
            .ssh_agent = share / "ssh" / "agent.sh",
            .runner_scripts = share / "runner",
            .workloads = prefix / "libexec" / "iotap",
            .stapio_drain = prefix / "libexec" / "iotap" / "stapio_drain.so",
            .cache = fs::path(cache_home) / "iotap"};
  }
  return {.installed = false,
          .tapsets = config::kTapsetDir,
          .examples = config::kExampleDir,
          .providers = config::kProviderDir,
          .guest_init = config::kGuestInitScript,
          .ssh_agent = config::kSshAgentScript,
          .runner_scripts = config::kRunnerScriptDir,
          .workloads = config::kWorkloadDir,
          .stapio_drain = config::kStapioDrain,
          .cache = config::kCacheDir};
}

namespace {

std::string running_executable() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string() : self.string();
}

std::string cache_home() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') return xdg;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache";
  }
  return "/var/cache";
}

}  // namespace

std::string stap_state_dir() {
  if (const char* dir = std::getenv("SYSTEMTAP_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.systemtap";
  return {};
}

const DataPaths& data_paths() {
  static const DataPaths paths = data_paths_for(running_executable(), cache_home());
  return paths;
}

}  // namespace iotap
