#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <limits>
#include <string>
#include <system_error>

#include "iotap/recording/recording.h"
#include "iotap/util/file_kind.h"

namespace iotap::recording {

namespace {

// The request line's fields, in order, as errors name them.
constexpr std::array<std::string_view, 10> kFields = {"START",  "THREAD",  "OP",  "OFFSET", "SIZE",
                                                      "RESULT", "LATENCY", "DEV", "DIRECT", "CALL"};

// Walks the text a line at a time, knowing where each line starts, so that every error can say
// where it is.
class Lines {
 public:
  Lines(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  // The next line without its newline; false at the end of the text. A last line without a
  // newline is an error: the file was cut inside it.
  bool next(std::string_view& line) {
    if (at_ >= text_.size()) return false;
    line_start_ = at_;
    ++line_number_;
    const size_t newline = text_.find('\n', at_);
    if (newline == std::string_view::npos)
      fail("the recording ends inside a line: it was cut short (iotap record did not finish it)");
    line = text_.substr(at_, newline - at_);
    at_ = newline + 1;
    return true;
  }

  // Where the current line is, to name it again after later lines have been read.
  struct Position {
    size_t byte = 0, line = 0;
  };
  [[nodiscard]] Position position() const { return {line_start_, line_number_}; }

  [[noreturn]] void fail(const std::string& what) const { fail_at(position(), what); }
  [[noreturn]] void fail_at(Position where, const std::string& what) const {
    throw FormatError(std::string(name_) + ": byte " + std::to_string(where.byte) + " (line " +
                      std::to_string(where.line) + "): " + what);
  }
  [[noreturn]] void fail_at_end(const std::string& what) const {
    throw FormatError(std::string(name_) + ": byte " + std::to_string(text_.size()) + ": " + what);
  }

 private:
  std::string_view text_;
  std::string_view name_;
  size_t at_ = 0;
  size_t line_start_ = 0;
  size_t line_number_ = 0;
};

// A byte of the file as a message shows it: printable ASCII as itself, others escaped (\r, \t,
// \xff), so that what differs is seen (a CR line end once read "not 'iotap-recording 1'") and
// nothing reaches the terminal as a control byte.
void append_shown(std::string& out, unsigned char c) {
  if (c >= 0x20 && c < 0x7f) {
    out += static_cast<char>(c);
  } else if (c == '\r') {
    out += "\\r";
  } else if (c == '\t') {
    out += "\\t";
  } else {
    constexpr std::string_view kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
  }
}

std::string shown(std::string_view text) {
  constexpr size_t kMost = 40;
  std::string out = "'";
  for (const char c : text.substr(0, kMost)) append_shown(out, static_cast<unsigned char>(c));
  if (text.size() > kMost) out += "...";
  return out + "'";
}

template <typename Number>
bool parse_number(std::string_view word, Number& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

bool is_dev(std::string_view word) {
  if (word == "-") return true;
  const size_t colon = word.find(':');
  uint32_t major = 0;
  uint32_t minor = 0;
  return colon != std::string_view::npos && parse_number(word.substr(0, colon), major) &&
         parse_number(word.substr(colon + 1), minor);
}

bool is_call(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The JSON object after `keyword ` on `line`, checked to parse as one.
std::string object_after(const Lines& lines, std::string_view line, std::string_view keyword) {
  const std::string prefix = std::string(keyword) + " ";
  if (!line.starts_with(prefix))
    lines.fail("expected the " + std::string(keyword) + " line ('" + prefix + "{...}'), found " +
               shown(line));
  const std::string_view text = line.substr(prefix.size());
  if (!Json::parse(text, nullptr, /*allow_exceptions=*/false).is_object())
    lines.fail("the " + std::string(keyword) + " line's JSON object does not parse");
  return std::string(text);
}

// The header's keys that iotap reads have their documented types (docs/recording-format.md):
// a recording edited by hand is named with its byte, not an internal error later.
void check_header(const Lines& lines, std::string_view text) {
  const Json header = Json::parse(text);
  const auto check = [&](const char* key, bool (*ok)(const Json&), const char* expected) {
    const auto it = header.find(key);
    if (it != header.end() && !ok(*it))
      lines.fail(std::string("the header's \"") + key + "\" is " + shown(it->dump()) + ", not " +
                 expected);
  };
  const auto string = [](const Json& v) { return v.is_string(); };
  const auto string_or_null = [](const Json& v) { return v.is_string() || v.is_null(); };
  for (const char* key :
       {"program", "source", "target", "kernel", "recorded_at", "iotap", "provider"})
    check(key, string, "a string");
  for (const char* key : {"command", "stack"}) check(key, string_or_null, "a string or null");
  for (const char* key : {"devices", "levels", "files"})
    check(
        key, [](const Json& v) { return v.is_array(); }, "an array");
}

Request parse_request(const Lines& lines, std::string_view line) {
  std::array<std::string_view, kFields.size()> words;
  size_t count = 0;
  size_t at = 0;
  while (at <= line.size()) {
    size_t space = line.find(' ', at);
    if (space == std::string_view::npos) space = line.size();
    if (count == words.size())
      lines.fail("a request has " + std::to_string(kFields.size()) +
                 " fields (START THREAD OP OFFSET SIZE RESULT LATENCY DEV DIRECT CALL); this line "
                 "has more");
    words[count++] = line.substr(at, space - at);
    at = space + 1;
  }
  if (count != words.size())
    lines.fail("a request has " + std::to_string(kFields.size()) +
               " fields (START THREAD OP OFFSET SIZE RESULT LATENCY DEV DIRECT CALL); this line "
               "has " +
               std::to_string(count) + ": " + shown(line));
  const auto bad = [&](size_t field, const std::string& expected) {
    lines.fail("field " + std::to_string(field + 1) + " (" + std::string(kFields[field]) + ") is " +
               shown(words[field]) + ", not " + expected);
  };
  Request r;
  if (!parse_number(words[0], r.start_ns)) bad(0, "a number of nanoseconds");
  if (!parse_number(words[1], r.thread)) bad(1, "a thread number");
  if (words[2].size() != 1 || std::string_view("RWF").find(words[2][0]) == std::string_view::npos)
    bad(2, "R, W or F");
  r.op = words[2][0];
  if (!parse_number(words[3], r.offset)) bad(3, "a byte offset");
  if (!parse_number(words[4], r.size)) bad(4, "a number of bytes");
  if (!parse_number(words[5], r.result)) bad(5, "bytes or -errno");
  if (!parse_number(words[6], r.latency_ns)) bad(6, "a number of nanoseconds");
  if (!is_dev(words[7])) bad(7, "MAJ:MIN or -");
  r.dev = std::string(words[7]);
  if (words[8] != "0" && words[8] != "1") bad(8, "0 or 1");
  r.direct = words[8] == "1";
  if (!is_call(words[9])) bad(9, "a system call's name");
  r.call = std::string(words[9]);
  // Each field parsed; together they must still describe a request that could have happened.
  // Wrapped sums would otherwise reach the replayer's pacing and the reports as nonsense (a p99
  // of 2^64 ns, offsets scaled by zero).
  if (r.latency_ns > std::numeric_limits<uint64_t>::max() - r.start_ns)
    lines.fail("START + LATENCY (" + std::to_string(r.start_ns) + " + " +
               std::to_string(r.latency_ns) +
               " ns) is past the last time a recording can hold (2^64 ns)");
  constexpr auto kLastOffset = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (r.offset > kLastOffset || r.size > kLastOffset - r.offset)
    lines.fail("OFFSET + SIZE (" + std::to_string(r.offset) + " + " + std::to_string(r.size) +
               " bytes) is past the last byte a file can have (2^63 - 1)");
  if (r.result > 0 && static_cast<uint64_t>(r.result) > r.size)
    lines.fail("RESULT " + std::to_string(r.result) + " is more bytes than the " +
               std::to_string(r.size) + " its SIZE asked for");
  return r;
}

}  // namespace

Recording parse(std::string_view text, std::string_view name) {
  Lines lines(text, name);
  std::string_view line;
  const std::string magic = std::string(kMagic) + " " + std::to_string(kVersion);
  if (!lines.next(line)) lines.fail_at_end("the file is empty: not an iotap recording");
  if (!line.starts_with(std::string(kMagic) + " "))
    lines.fail("not an iotap recording: its first line is " + shown(line) + ", not '" + magic +
               "'");
  if (line == magic + "\r")
    lines.fail("its lines end in CR LF ('" + magic +
               "\\r'), not LF: it was converted to DOS line ends (dos2unix puts it back)");
  if (line != magic)
    lines.fail("this iotap reads '" + magic + "', not " + shown(line) +
               " (a newer iotap wrote it?)");
  Recording recording;
  uint64_t last_end_ns = 0;  // the latest START + LATENCY, and the line that has it
  Lines::Position last_end;
  if (!lines.next(line)) lines.fail_at_end("the recording ends before its header line");
  recording.header_line = object_after(lines, line, "header");
  check_header(lines, recording.header_line);
  while (true) {
    if (!lines.next(line))
      lines.fail_at_end("the recording ends without its end line, after " +
                        std::to_string(recording.requests.size()) +
                        " requests: it was cut short (iotap record killed, or a full disk)");
    if (line.starts_with("end ")) break;
    recording.requests.push_back(parse_request(lines, line));
    const Request& r = recording.requests.back();
    if (r.start_ns + r.latency_ns >= last_end_ns) {
      last_end_ns = r.start_ns + r.latency_ns;
      last_end = lines.position();
    }
  }
  recording.end_line = object_after(lines, line, "end");
  const Json count = recording.end().value("requests", Json());
  if (!count.is_number_unsigned() || count.get<uint64_t>() != recording.requests.size())
    lines.fail("the end line counts " + count.dump() + " requests; the recording holds " +
               std::to_string(recording.requests.size()));
  // iotap record's duration_ns is the latest START + LATENCY; a request ending after it was
  // changed by hand (or the end line was).
  if (const Json duration = recording.end().value("duration_ns", Json());
      duration.is_number_unsigned() && last_end_ns > duration.get<uint64_t>())
    lines.fail_at(last_end, "this request ends at " + std::to_string(last_end_ns) +
                                " ns (START + LATENCY), after the end line's duration_ns " +
                                duration.dump() + ": the requests and the end line disagree");
  if (lines.next(line)) lines.fail("text after the end line: " + shown(line));
  return recording;
}

Recording read(const std::string& path) {
  // Not blocking, and only a regular file of at most kMaxBytes: a FIFO would wait for a writer,
  // /dev/zero would never end.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), path);
  std::string text;
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw std::system_error(errno, std::generic_category(), path);
    if (const std::string_view kind = non_regular_kind(st.st_mode); !kind.empty())
      throw FormatError(path + " is " + std::string(kind) + ", not a recording");
    if (static_cast<uint64_t>(st.st_size) > kMaxBytes)
      throw FormatError(path + " is " + std::to_string(st.st_size) + " bytes: larger than a " +
                        "recording iotap reads (" + std::to_string(kMaxBytes) + ")");
    std::array<char, 1 << 16> buffer{};
    while (true) {
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::system_error(errno, std::generic_category(), path);
      if (n == 0) break;
      text.append(buffer.data(), static_cast<size_t>(n));
      if (text.size() > kMaxBytes)
        throw FormatError(path + " grew past " + std::to_string(kMaxBytes) +
                          " bytes while it was read: larger than a recording iotap reads");
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return parse(text, path);
}

}  // namespace iotap::recording
