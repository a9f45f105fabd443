#pragma once
// A private (0700) temporary directory, removed with everything in it when the owner goes away,
// on success, on error and after Ctrl-C alike.
#include <string>

namespace iotap {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "iotap");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&&) = delete;
  TempDir& operator=(TempDir&&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace iotap
