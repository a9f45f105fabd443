#pragma once
// iotap's own cache of compiled modules, looked up before stap runs.
//
// stap has a cache too (~/.systemtap/cache), but it finds its module only after parsing every
// tapset and reading the kernel's debuginfo: about 3 s per run for a script it has compiled
// before. Here a hit is a hash of the inputs and a hard link, and staprun gets the module at once.
//
// The key covers everything that changes the module: stap's version and command line (options,
// kernel, runtime, script arguments), the script's text and name, the text of iotap's tapsets and
// of the macros naming this run's programs, the runtime and the kernel tree by path, size and
// modification time, and every file the script, macros or command line name by absolute path
// (a traced binary rebuilt moves its probes).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iotap {
class FileLock;
}

namespace iotap::stap {

// Where the cache lives: $IOTAP_MODULE_CACHE when set ("off" turns the cache off), else
// `default_dir`. Empty: no cache.
std::string module_cache_dir(const std::string& default_dir);

// What a key is made of, beyond the files it names (see module_cache_key).
struct ModuleInputs {
  std::string stap_version;            // `stap -V`'s first line
  std::vector<std::string> stap_argv;  // with the work dir written as "@work"
  std::string script_name;             // the compile's messages name the script so
  std::string script_text;             // after marker substitution
  std::string path_macros;             // iotap_paths.stpm's text
  std::vector<std::string> tapset_dirs;
  std::string runtime_dir;  // empty: SystemTap's own (its version covers it)
  std::string kernel;       // a release, or a kernel tree's path
};

// The inputs' SHA-256, in hex.
std::string module_cache_key(const ModuleInputs& inputs);

// The absolute paths quoted in `text` ("/usr/bin/ls"), in order of appearance, repeats kept.
std::vector<std::string> quoted_absolute_paths(std::string_view text);

struct CachedModule {
  std::string module_path;  // the module, in the cache
  // Where the script copy was when the module was compiled: its run-time errors name that path.
  std::string compiled_script_path;
  std::string warnings;  // what stap warned when it compiled it, shown again
};

class ModuleCache {
 public:
  explicit ModuleCache(std::string dir) : dir_(std::move(dir)) {}

  // The module for `key`, when there is one; marks it used (the least used go first).
  [[nodiscard]] std::optional<CachedModule> find(const std::string& key) const;
  // Keeps `module` (its module_path a freshly compiled module) under `key`, then drops the
  // least recently used entries beyond `max_entries`. Throws UserError when it cannot write.
  void store(const std::string& key, const CachedModule& module, size_t max_entries = 128) const;
  // Held while the module for `key` is compiled: a run that wants the same module (a fleet's
  // hosts of one kernel, two users' runs of one script) waits for it, calling `on_wait` once,
  // and then finds the module here. Throws Stopped when a stop signal comes while it waits.
  [[nodiscard]] std::unique_ptr<FileLock> compiling(const std::string& key,
                                                    const std::function<void()>& on_wait) const;

 private:
  void remove_old_locks() const;
  std::string dir_;
};

}  // namespace iotap::stap
