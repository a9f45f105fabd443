#include "initramfs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

#include "iotap/config.h"
#include "iotap/guest/elf_dependencies.h"
#include "iotap/guest/guest_requirements.h"
#include "iotap/runner/scripts.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/sha256.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

// Bump when the layout of the base image changes, so old cached images are not reused.
constexpr std::string_view kBaseFormat = "iotap-base-5";

// Where init.sh preloads stapio_drain.so from (data_paths.h).
constexpr const char* kGuestStapioDrain = "/lib/iotap/stapio_drain.so";

struct HostTool {
  const char* name;
  std::vector<std::string> candidates;  // absolute paths tried in order, else PATH
  const char* package;
};

std::string find_tool(const HostTool& tool) {
  for (const auto& candidate : tool.candidates) {
    if (is_executable_file(candidate)) return candidate;
  }
  return find_in_path(tool.name);
}

std::vector<std::string> base_programs() {
  std::vector<std::string> paths;
  for (const auto& program : guest_host_programs()) {
    if (program.path.empty()) {
      throw UserError("the guest needs " + program.name +
                      " from the host, which is not installed (apt-get install " + program.package +
                      "; ./setup.sh does; " + kDoctorHint + ")");
    }
    paths.push_back(program.path);
  }
  return paths;
}

}  // namespace

std::vector<HostProgram> guest_host_programs() {
  const std::vector<HostTool> tools{
      {"busybox", {"/bin/busybox"}, "busybox-static"},
      {"staprun", {"/usr/bin/staprun"}, "systemtap-runtime"},
      {"stapio",
       {"/usr/lib/systemtap/stapio", "/usr/libexec/systemtap/stapio"},
       "systemtap-runtime"},
      {"mdadm", {"/sbin/mdadm", "/usr/sbin/mdadm"}, "mdadm"},
      {"dmsetup", {"/sbin/dmsetup", "/usr/sbin/dmsetup"}, "dmsetup"},
      // busybox has no nice applet; init.sh runs staprun above the traced program with it
      {"nice", {"/usr/bin/nice", "/bin/nice"}, "coreutils"},
  };
  std::vector<HostProgram> programs;
  programs.reserve(tools.size());
  for (const auto& tool : tools) programs.push_back({tool.name, find_tool(tool), tool.package});
  return programs;
}

const std::vector<std::string>& stack_module_names() {
  static const std::vector<std::string> kNames{
      "brd",        "md-mod",     "raid0",          "raid1",    "raid10",   "raid456",
      "dm-mod",     "dm-delay",   "dm-flakey",      "dm-crypt", "ecb",      "xts",
      "virtio_pci", "virtio_blk", "virtio_console", "configfs", "null_blk", "virtio_net"};
  return kNames;
}

const std::vector<std::string>& channel_module_names() {
  static const std::vector<std::string> kNames{"virtio_pci", "virtio_console"};
  return kNames;
}

void InitramfsBuilder::add_host_path(const std::string& host_path) {
  // Walk the path component by component; a symlink found on the way is recorded as a
  // symlink and the walk continues from its target.
  fs::path resolved = "/";
  const fs::path path = fs::path(host_path).lexically_normal();
  std::vector<fs::path> rest(path.begin(), path.end());
  int hops = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "/" || rest[i].empty()) continue;
    const fs::path next = resolved / rest[i];
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0)
      throw UserError("cannot add '" + host_path + "' to the guest: " + std::strerror(errno));
    if (S_ISLNK(st.st_mode)) {
      if (++hops > 40) throw UserError("too many symlinks under '" + host_path + "'");
      const fs::path target = fs::read_symlink(next);
      cpio_.add_symlink(next.string(), target.string());
      const fs::path absolute =
          (target.is_absolute() ? target : resolved / target).lexically_normal();
      std::vector<fs::path> remaining(absolute.begin(), absolute.end());
      remaining.insert(remaining.end(), rest.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                       rest.end());
      rest = std::move(remaining);
      resolved = "/";
      i = static_cast<size_t>(-1);
      continue;
    }
    resolved = next;
    if (i + 1 < rest.size()) {
      if (!S_ISDIR(st.st_mode)) throw UserError("'" + next.string() + "' is not a directory");
      cpio_.add_directory(next.string());
    } else if (S_ISREG(st.st_mode)) {
      if (left_out_ == nullptr || !left_out_->contains(next.string()))
        cpio_.add_host_file(next.string(), next.string(), st.st_mode & 07777);
    } else {
      throw UserError("cannot add '" + host_path + "' to the guest: not a regular file");
    }
  }
}

void InitramfsBuilder::add_program(const std::string& host_path) {
  add_host_path(host_path);
  for (const auto& dependency : runtime_dependencies(host_path)) add_host_path(dependency);
}

// The libraries of iotap's own workloads (block_hasher, io_replayer): most runs' programs, whose
// libraries (OpenSSL's libcrypto, libstdc++) would otherwise make up most of each run's files.
// The binaries themselves change with every build and stay in the runs' files.
std::vector<std::string> workload_libraries() {
  std::vector<std::string> libraries;
  for (const char* name : {"block_hasher", "io_replayer"}) {
    for (const fs::path& candidate : {fs::path(data_paths().workloads) / name / name,
                                      fs::path(data_paths().workloads) / name}) {
      if (!is_executable_file(candidate.string())) continue;
      for (const auto& library : runtime_dependencies(candidate.string()))
        libraries.push_back(library);
      break;
    }
  }
  return libraries;
}

// Old images (another kernel, an older init.sh or tool) are kept for a while: a run that chose
// one a moment ago may not have started qemu on it yet. Past the newest few, they go.
void evict_old_images(const std::string& cache_dir) {
  constexpr size_t kKept = 3;
  std::vector<std::pair<fs::file_time_type, fs::path>> images;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("initramfs-base-") || !name.ends_with(".cpio")) continue;
    images.emplace_back(entry.last_write_time(ec), entry.path());
  }
  if (images.size() <= kKept) return;
  std::sort(images.begin(), images.end(), std::greater<>());
  for (size_t i = kKept; i < images.size(); ++i) fs::remove(images[i].second, ec);
}

BaseImage base_initramfs(const GuestKernel& kernel, const std::string& cache_dir) {
  const auto programs = base_programs();
  const auto libraries = workload_libraries();
  const auto modules = kernel.module_load_order(stack_module_names());
  const std::string init = data_paths().guest_init;
  const std::string device_lines = runner::device_lines_script();
  const std::string staprun = runner::staprun_script();
  const std::string stack_build = (fs::path(init).parent_path() / "stack_build.sh").string();
  const std::string stapio_drain = data_paths().stapio_drain;

  // The key covers every input by path, size and modification time (the kernel's modules
  // and the tools change only with their packages), plus init's text and what it sources.
  Sha256 key;
  key.update(kBaseFormat).update(kernel.release).update(read_file(init));
  key.update(read_file(device_lines)).update(read_file(staprun)).update(read_file(stack_build));
  std::vector<std::string> inputs = programs;
  for (const auto& program : programs) {
    for (const auto& dependency : runtime_dependencies(program)) inputs.push_back(dependency);
  }
  inputs.insert(inputs.end(), libraries.begin(), libraries.end());
  inputs.insert(inputs.end(), modules.begin(), modules.end());
  inputs.push_back(stapio_drain);
  for (const auto& input : inputs) key.update_file_identity(input);
  BaseImage image;
  image.path = cache_dir + "/initramfs-base-" + key.hex().substr(0, 16) + ".cpio";
  for (const auto& input : inputs) {
    std::error_code ec;
    const fs::path resolved = fs::canonical(input, ec);
    if (!ec) image.host_files.insert(resolved.string());
  }
  const std::string& path = image.path;
  if (::access(path.c_str(), R_OK) == 0) return image;

  std::error_code ec;
  fs::create_directories(cache_dir, ec);
  if (ec) throw UserError("cannot create cache directory '" + cache_dir + "': " + ec.message());
  // Written under a temporary name and renamed: a concurrent run never sees half an image.
  const std::string partial = path + ".partial." + std::to_string(::getpid());
  {
    InitramfsBuilder builder(partial);
    for (const auto& program : programs) builder.add_program(program);
    for (const auto& library : libraries) builder.add_host_path(library);
    for (const auto& module : modules) builder.add_host_path(module);
    for (const char* mount_point : {"/proc", "/sys", "/dev", "/tmp", "/run", "/iotap"})
      builder.add_directory(mount_point);
    builder.add_file("/init", read_file(init), 0755);
    builder.add_file("/lib/iotap/device_lines.sh", read_file(device_lines));
    builder.add_file("/lib/iotap/staprun.sh", read_file(staprun));
    builder.add_file("/lib/iotap/stack_build.sh", read_file(stack_build));
    builder.add_directory("/lib/iotap");
    builder.add_file(kGuestStapioDrain, read_file(stapio_drain), 0755);
    // What init.sh loads before the run's files can come: the virtio-serial ports.
    std::string channel_modules;
    for (const auto& module : kernel.module_load_order(channel_module_names()))
      channel_modules += module + "\n";
    builder.add_file("/lib/iotap/channel-modules", channel_modules);
    builder.finish();
  }
  fs::rename(partial, path, ec);
  if (ec) throw UserError("cannot write '" + path + "': " + ec.message());
  evict_old_images(cache_dir);
  return image;
}

}  // namespace iotap::guest
