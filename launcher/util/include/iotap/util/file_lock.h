#pragma once
// An exclusive flock(2) on a file, held for the object's life: runs that would make the same
// thing (one module for one kernel: a fleet's hosts of one release, two users compiling one
// script) take turns, and the later ones find it made. The kernel lets it go with its holder,
// however that ends, so a crashed run never leaves it held.
#include <functional>
#include <string>

namespace iotap {

class FileLock {
 public:
  // Takes the lock on `path` (made, empty, if absent). While another process holds it, calls
  // `on_wait` once and waits, watching for a stop signal (then throws Stopped, saying
  // `while_doing`). Throws UserError when the file cannot be made.
  FileLock(const std::string& path, const std::function<void()>& on_wait,
           const std::string& while_doing);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock(FileLock&&) = delete;
  FileLock& operator=(FileLock&&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace iotap
