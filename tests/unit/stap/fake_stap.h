#pragma once
// A stand-in `stap` for unit tests of the compile step.
#include <cstdlib>
#include <string>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {

// A stand-in `stap` (a shell script) first on PATH while it lives; PATH is put back after.
class FakeStap {
 public:
  explicit FakeStap(const std::string& script) {
    write_file(bin_ / "stap", script, 0755);
    // Its directory is first on PATH while it lives: (bin() / "calls") is a place to log to.
    const char* path = std::getenv("PATH");
    saved_path_ = path != nullptr ? path : "";
    ::setenv("PATH", (bin_.path() + ":" + saved_path_).c_str(), 1);
  }
  ~FakeStap() { ::setenv("PATH", saved_path_.c_str(), 1); }
  FakeStap(const FakeStap&) = delete;
  FakeStap& operator=(const FakeStap&) = delete;
  FakeStap(FakeStap&&) = delete;
  FakeStap& operator=(FakeStap&&) = delete;

  [[nodiscard]] const TempDir& bin() const { return bin_; }

 private:
  TempDir bin_;
  std::string saved_path_;
};

}  // namespace iotap::stap
