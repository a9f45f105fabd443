#pragma once
// A private (0700) temporary directory, removed with everything in it when the owner goes away,
// on success, on error and after a stop signal alike (util/stop_signal.h).
//
// Its name carries the owner's pid, $TMPDIR/PREFIX.PID.XXXXXX, and the owner holds an flock on
// it for as long as it lives: a directory left by an iotap that was killed outright (SIGKILL,
// a crash, a power cut) is recognised as such by the next run and removed
// (util/leftovers.h).
#include <string>

namespace iotap {

// The directory temp dirs go in: $TMPDIR, or /tmp when it is unset or empty. Throws UserError
// when it does not exist, is not a directory or cannot be written, so that a bad TMPDIR is
// reported before anything slow starts.
std::string temp_base();

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "iotap");
  // In `parent` rather than temp_base(): for what another user must reach (a directory under
  // a private TMPDIR is out of reach of all but its owner).
  TempDir(const std::string& prefix, const std::string& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&&) = delete;
  TempDir& operator=(TempDir&&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  // The path a TempDir(prefix) made now by this process would have, with the random part as
  // XXXXXX: its length is that of the real one (the socket paths under it must fit).
  static std::string pattern(const std::string& prefix);

 private:
  static std::string pattern_in(const std::string& parent, const std::string& prefix);
  std::string path_;
  int lock_fd_ = -1;
};

}  // namespace iotap
