#include "iotap/guest/tools_image.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "iotap/guest/elf_dependencies.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/sha256.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kImageFormat = "iotap tools image 1";
constexpr uint64_t kMiB = uint64_t{1} << 20;

// The launcher: the program with its libraries first on the loader's path.
std::string launcher(const std::string& program, const std::set<std::string>& library_dirs) {
  std::string path;
  for (const auto& dir : library_dirs) path += (path.empty() ? "/tools" : ":/tools") + dir;
  return "#!/bin/sh\nLD_LIBRARY_PATH=" + path + " exec /tools" + program + " \"$@\"\n";
}

}  // namespace

std::string tools_image(const std::vector<std::string>& programs, const std::string& cache_dir,
                        const std::vector<std::string>& more_files) {
  std::vector<std::string> files = more_files;
  std::set<std::string> library_dirs;
  for (const auto& program : programs) {
    if (!is_executable_file(program))
      throw UserError("'" + program + "' is not an executable file (the tools image needs it)");
    files.push_back(program);
    for (const auto& dependency : runtime_dependencies(program)) {
      files.push_back(dependency);
      library_dirs.insert(fs::path(dependency).parent_path().string());
    }
  }
  std::ranges::sort(files);
  files.erase(std::unique(files.begin(), files.end()), files.end());

  Sha256 key;
  key.update(kImageFormat);
  uint64_t bytes = 0;
  for (const auto& file : files) bytes += key.update_file_identity(file);
  std::string image = cache_dir + "/tools-" + key.hex().substr(0, 16) + ".img";
  if (::access(image.c_str(), R_OK) == 0) return image;

  const std::string mke2fs = find_in_path("mke2fs");
  if (mke2fs.empty())
    throw UserError(
        std::string("the tools image needs mke2fs (apt-get install e2fsprogs; ./setup.sh "
                    "does; ") +
        kDoctorHint + ")");
  std::error_code error;
  fs::create_directories(cache_dir, error);
  if (error) throw UserError("cannot create '" + cache_dir + "': " + error.message());
  const TempDir stage("iotap-tools");
  const fs::path root = fs::path(stage.path()) / "root";
  for (const auto& file : files) {
    const fs::path into = root / fs::path(file).relative_path();
    fs::create_directories(into.parent_path());
    // The file's bytes under the name it was asked for: the loader finds libraries by soname.
    fs::copy_file(file, into, fs::copy_options::overwrite_existing, error);
    if (error)
      throw UserError("cannot copy '" + file + "' for the tools image: " + error.message());
  }
  fs::create_directories(root / "bin");
  for (const auto& program : programs) {
    write_file((root / "bin" / fs::path(program).filename()).string(),
               launcher(program, library_dirs), 0755);
  }
  // Written under a temporary name and renamed: a concurrent run never sees half an image.
  const std::string partial = image + ".partial." + std::to_string(::getpid());
  const uint64_t size_kib = (bytes + bytes / 5 + 32 * kMiB) / 1024;
  const Captured made = capture({mke2fs, "-q", "-F", "-t", "ext4", "-O", "^has_journal", "-m", "0",
                                 "-L", "iotap-tools", "-E", "root_owner=0:0", "-d", root.string(),
                                 partial, std::to_string(size_kib) + "k"});
  if (!made.status.ok()) {
    fs::remove(partial, error);
    throw UserError("mke2fs could not build the tools image: " + made.err);
  }
  fs::rename(partial, image, error);
  if (error) throw UserError("cannot write '" + image + "': " + error.message());
  return image;
}

}  // namespace iotap::guest
