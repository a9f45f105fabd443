#pragma once
// What a path names when it is not a regular file, for messages like "X is a FIFO (named pipe)".
// Callers stat() a path before opening it: opening a FIFO for reading blocks until a writer
// comes, and opening a device node can have side effects (a tape rewinds), so the type is
// checked first and such files are never opened. Header-only so that libraries which link
// nothing else (the USDT reader, its fuzz target) can use it.
#include <sys/stat.h>

#include <string_view>

namespace iotap {

// "a directory", "a FIFO (named pipe)", ...; empty for a regular file.
inline std::string_view non_regular_kind(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

}  // namespace iotap
