#pragma once
// Where a verb's report goes: stdout, or the file named by -o.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace iotap::verbs {

class OutputFile {
 public:
  // An empty path means stdout. A path is checked at once, so that a mistyped -o fails before a
  // run of minutes rather than after it; the file itself is only created (or truncated) by the
  // first write, so a run that fails before it has anything to say leaves an old report intact.
  // Throws UserError when the path cannot take a report: only a regular file that opens for
  // writing, a new file in a writable directory, or a stream (a terminal, /dev/null, a pipe such
  // as /dev/stdout) can; not a directory, a block device, or a file under /proc or /sys.
  // `option` names the path's option in messages ("-o", "--html").
  explicit OutputFile(std::string path, std::string_view option = "-o");

  // Writes and flushes: a live report is seen as it is made. Throws UserError if the file
  // cannot take it (a full disk, say).
  void write(std::string_view text);

  // True when the report goes to a terminal (stdout is a tty and there is no -o).
  [[nodiscard]] bool is_terminal() const;

 private:
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::string path_;
  std::string option_;
  std::unique_ptr<std::FILE, FileCloser> file_;
};

// For a file written whole, under a temporary name beside it and then renamed over it
// (--save-module's module): throws UserError, before anything is compiled, when `path` cannot
// be one: a directory, a device or FIFO (renamed over, /dev/null would be gone), a kernel
// interface file, or a place whose directory is missing or not writable.
void check_replaceable_file(const std::string& path, std::string_view option);

}  // namespace iotap::verbs
