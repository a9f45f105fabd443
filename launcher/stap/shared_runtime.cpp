#include "iotap/stap/shared_runtime.h"

#include <filesystem>
#include <system_error>

#include "iotap/util/cache_eviction.h"
#include "iotap/util/files.h"
#include "iotap/util/sha256.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

// Versions of the runtime a machine keeps (2.4 MB each): the newest made, this iotap's among them.
constexpr size_t kRuntimesKept = 4;

// The mark of a whole copy, written last (inside the partial directory, before the rename).
constexpr const char* kCompleteMark = ".iotap-runtime-id";

}  // namespace

std::string runtime_content_id(const std::string& runtime_dir) {
  const std::vector<std::string> files = files_under(runtime_dir);
  if (files.empty()) return {};
  Sha256 id;
  for (const auto& file : files) {
    if (file == kCompleteMark) continue;
    id.update_field(file);
    id.update_file((fs::path(runtime_dir) / file).string());
  }
  return id.hex();
}

std::string shared_runtime_dir(const std::string& runtime_dir, const std::string& state_dir) {
  if (state_dir.empty() || runtime_dir.empty()) return runtime_dir;
  std::string id;
  try {
    id = runtime_content_id(runtime_dir);
  } catch (const std::exception&) {
    return runtime_dir;  // an unreadable file: stap will say so, naming it
  }
  if (id.empty()) return runtime_dir;
  const fs::path parent = fs::path(state_dir) / "iotap-runtime";
  const fs::path shared = parent / id;
  std::error_code error;
  // Taken as it is: stap's cache key holds the runtime's directories' sizes and times too
  // ("Runtime Timestamp"), so nothing in it may change once it is made, not even to mark a use.
  if (fs::is_regular_file(shared / kCompleteMark, error)) return shared.string();
  const fs::path partial = parent / partial_entry_name(id);
  fs::path published = shared;
  try {
    fs::create_directories(parent);
    fs::remove_all(partial);
    fs::copy(runtime_dir, partial, fs::copy_options::recursive);
    // Named by what was copied, not by what was hashed before: a runtime rebuilt meanwhile gets
    // the name of its new bytes.
    const std::string copied = runtime_content_id(partial.string());
    published = parent / copied;
    write_file((partial / kCompleteMark).string(), copied + "\n");
    fs::rename(partial, published, error);
  } catch (const std::exception&) {
    fs::remove_all(partial, error);
    return runtime_dir;
  }
  // Another run published the same content first: its copy is as good as this one.
  if (error) fs::remove_all(partial, error);
  if (!fs::is_regular_file(published / kCompleteMark, error)) return runtime_dir;
  evict_least_recently_used(parent.string(), kRuntimesKept);
  return published.string();
}

}  // namespace iotap::stap
