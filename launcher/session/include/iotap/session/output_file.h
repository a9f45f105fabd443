#pragma once
// Where a verb's report goes: stdout, or the file named by -o (or --html, --perfetto).
#include <sys/types.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace iotap::session {

class OutputFile {
 public:
  // How a file is replaced: at the first write (a report, written as it is made), or only when
  // the verb commits it (a recording: one that recorded nothing leaves the old file as it was).
  enum class Replace { kAtFirstWrite, kAtCommit };

  // An empty path means stdout (the verbs refuse an empty option value: session/parse_options.h).
  // A path is checked at once, so that a mistyped -o fails before a run of minutes rather than
  // after it; the file itself is only created (or truncated) by the first write, so a run that
  // fails before it has anything to say leaves an old report intact.
  // Throws UserError when the path cannot take a report: only a regular file that opens for
  // writing, a new file in a writable directory, or a stream (a terminal, /dev/null, a pipe such
  // as /dev/stdout or -o >(cmd), a FIFO) can; not a directory, a block device, or a file under
  // /proc or /sys. `option` names the path's option in messages ("-o", "--html").
  explicit OutputFile(std::string path, std::string_view option = "-o",
                      Replace replace = Replace::kAtFirstWrite);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Closes the file; with Replace::kAtCommit and no commit(), removes what was written and
  // leaves the old file as it was.
  ~OutputFile();

  // Writes (and, for stdout, flushes): a live report is seen as it is made. Throws UserError if
  // the file cannot take it (a full disk, say). A FIFO that no process reads yet is waited for,
  // saying so on stderr once; a stop signal (SIGINT, SIGTERM) then throws Stopped, and so it
  // does while a reader that does not read keeps the pipe full.
  void write(std::string_view text);

  // Replace::kAtCommit: puts what was written in the file's place (a rename: the old file is
  // there until then, whole). Does nothing for a stream, stdout, or when nothing was written.
  void commit();

  // True when the report goes to a terminal (stdout is a tty and there is no -o).
  [[nodiscard]] bool is_terminal() const;

  [[nodiscard]] const std::string& path() const { return path_; }

  // Throws UserError when this output is the file `input` (the same device and inode, however
  // the two are spelt): writing it would replace what the verb reads. `what` names the input in
  // the message ("the attribution it reads").
  void refuse_input(const std::string& input, std::string_view what) const;

  // Throws UserError when two of `outputs` (null ones skipped) name one file: the later would
  // replace the earlier. Streams (/dev/null, a FIFO, a terminal) may be named twice.
  static void refuse_same_file(std::initializer_list<const OutputFile*> outputs);

 private:
  // What names a file: its device and inode, or for a file yet to be made, its directory's and
  // its name.
  struct Identity {
    dev_t dev = 0;
    ino_t ino = 0;
    std::string name;  // empty for a file that exists
    bool operator==(const Identity&) const = default;
  };

  void open_file();
  void wait_for_reader();

  std::string path_;
  std::string option_;
  Replace replace_;
  std::optional<Identity> identity_;  // for a regular file or one to be made; none for a stream
  int fd_ = -1;
  std::string temporary_;  // Replace::kAtCommit: the file written, renamed at commit()
};

// For a file written whole, under a temporary name beside it and then renamed over it
// (--save-module's module): throws UserError, before anything is compiled, when `path` cannot
// be one: a directory, a device or FIFO (renamed over, /dev/null would be gone), a kernel
// interface file, or a place whose directory is missing or not writable.
void check_replaceable_file(const std::string& path, std::string_view option);

}  // namespace iotap::session
