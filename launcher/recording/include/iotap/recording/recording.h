#pragma once
// A recording of a program's requests: what `iotap record` writes, workloads/io_replayer replays
// and `iotap replay` checks the replay against. docs/recording-format.md is the format's
// definition; this header is its C++ face.
//
//   iotap-recording 1
//   header {"program": ..., "source": "usdt", ...}
//   START THREAD OP OFFSET SIZE RESULT LATENCY DEV DIRECT CALL      (one line per request)
//   end {"requests": 64, ...}
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace iotap::recording {

using Json = nlohmann::ordered_json;

inline constexpr int kVersion = 1;
inline constexpr std::string_view kMagic = "iotap-recording";
// The largest recording read: 1 GiB, about 20 million requests (it is held in memory whole, and
// parsed takes about three times that).
inline constexpr uint64_t kMaxBytes = uint64_t{1} << 30U;

struct Request {
  uint64_t start_ns = 0;  // since the first recorded request started
  uint32_t thread = 0;    // the program's thread, numbered from 0
  char op = 'R';          // R (read), W (write), F (flush: fsync, fdatasync)
  uint64_t offset = 0;    // bytes; 0 for a flush
  uint64_t size = 0;      // bytes asked for; 0 for a flush
  int64_t result = 0;     // bytes done, or -errno
  uint64_t latency_ns = 0;
  std::string dev;      // "MAJ:MIN" of the device it went to, or "-" when not known
  bool direct = false;  // O_DIRECT
  std::string call;     // the system call ("pread64", "fdatasync"), or "read" for a USDT read
};

// What is wrong with a recording, with where: "rec: byte 1234 (line 17): ...".
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Recording {
  std::string header_line;        // the header's JSON object, as written (header() parses it)
  std::vector<Request> requests;  // in the file's order: the order the requests ended
  std::string end_line;           // the end's JSON object, as written

  // docs/recording-format.md, "The header" and "The end".
  [[nodiscard]] Json header() const { return Json::parse(header_line); }
  [[nodiscard]] Json end() const { return Json::parse(end_line); }
};

// Reads the whole file. Throws FormatError (with the byte offset of the first thing wrong: a bad
// magic line, a field, a missing end; or saying that the path is not a regular file, or is larger
// than kMaxBytes) and std::system_error when the file cannot be read.
Recording read(const std::string& path);
// The same from text; `name` is what errors call it.
Recording parse(std::string_view text, std::string_view name);

// Writes a recording as requests end, to `sink` in chunks: memory stays flat however long the
// recording. The header goes first; finish() writes the end line, which a reader requires (a
// recording without it was cut short).
class Writer {
 public:
  using Sink = std::function<void(std::string_view)>;
  Writer(Sink sink, const Json& header);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() = default;

  void add(const Request& request);
  // `end` gets "requests" (the count written) added; then everything is flushed to the sink.
  void finish(Json end);
  [[nodiscard]] uint64_t requests() const { return requests_; }

 private:
  void flush();
  Sink sink_;
  std::string buffer_;
  uint64_t requests_ = 0;
};

// One request line, without its newline (what Writer writes; tests compare with it).
std::string format_line(const Request& request);

// fio's iolog version 3 of the recording, for `fio --read_iolog`: every request on `file`, in
// the order they started, with their start times in microseconds. fio replays one log in one
// job, so the threads are merged. Flushes are "sync" (fsync) or "datasync" (fdatasync).
std::string fio_iolog(const Recording& recording, const std::string& file);

}  // namespace iotap::recording
