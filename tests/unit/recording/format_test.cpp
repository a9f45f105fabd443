// The recording format (docs/recording-format.md): what Writer writes, parse() reads back, and
// every way a file can be damaged gets a FormatError naming the byte where it is.
#include <gtest/gtest.h>

#include <string>

#include "iotap/recording/recording.h"

namespace iotap::recording {
namespace {

Request a_read(uint64_t start, uint32_t thread) {
  return Request{.start_ns = start,
                 .thread = thread,
                 .op = 'R',
                 .offset = 1048576ULL * thread,
                 .size = 1048576,
                 .result = 1048576,
                 .latency_ns = 5'123'456,
                 .dev = "253:0",
                 .direct = true,
                 .call = "read"};
}

std::string written(const std::vector<Request>& requests) {
  std::string out;
  Writer writer([&](std::string_view bytes) { out += bytes; },
                Json{{"program", "block_hasher"}, {"source", "usdt"}});
  for (const auto& r : requests) writer.add(r);
  writer.finish(Json{{"threads", 2}});
  return out;
}

// What parse() says about `text`, which must be wrong.
std::string error_of(const std::string& text) {
  try {
    parse(text, "rec");
  } catch (const FormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed without an error:\n" << text;
  return "";
}

// A recording of two requests, with the second's line replaced: where a bad field is named.
struct SecondRequest {
  std::string whole = written({a_read(0, 0), a_read(5, 1)});
  size_t at = whole.find("5 1 R");
  [[nodiscard]] std::string as(const std::string& line) const {
    std::string text = whole;
    text.replace(at, text.find('\n', at) - at, line);
    return text;
  }
  // How an error names the second request's line.
  [[nodiscard]] std::string where() const {
    return "rec: byte " + std::to_string(at) + " (line 4): ";
  }
};

TEST(RecordingFormat, WhatIsWrittenReadsBackFieldForField) {
  Request flush{.start_ns = 900,
                .thread = 1,
                .op = 'F',
                .offset = 0,
                .size = 0,
                .result = 0,
                .latency_ns = 20'000'000,
                .dev = "9:0",
                .direct = false,
                .call = "fdatasync"};
  Request failed{.start_ns = 1000,
                 .thread = 0,
                 .op = 'W',
                 .offset = 4096,
                 .size = 512,
                 .result = -5,
                 .latency_ns = 77,
                 .dev = "-",
                 .direct = false,
                 .call = "pwrite64"};
  const std::string text = written({a_read(0, 0), flush, failed});
  EXPECT_EQ(text,
            "iotap-recording 1\n"
            "header {\"program\":\"block_hasher\",\"source\":\"usdt\"}\n"
            "0 0 R 0 1048576 1048576 5123456 253:0 1 read\n"
            "900 1 F 0 0 0 20000000 9:0 0 fdatasync\n"
            "1000 0 W 4096 512 -5 77 - 0 pwrite64\n"
            "end {\"threads\":2,\"requests\":3}\n");
  const Recording back = parse(text, "rec");
  EXPECT_EQ(back.header()["program"], "block_hasher");
  EXPECT_EQ(back.end()["requests"], 3);
  ASSERT_EQ(back.requests.size(), 3U);
  EXPECT_EQ(format_line(back.requests[0]), format_line(a_read(0, 0)));
  EXPECT_EQ(format_line(back.requests[1]), format_line(flush));
  EXPECT_EQ(back.requests[2].result, -5);
  EXPECT_EQ(back.requests[2].op, 'W');
  EXPECT_EQ(back.requests[1].call, "fdatasync");
}

TEST(RecordingFormat, TheWriterHandsOverTheHeaderAtOnceAndTheRestInChunks) {
  std::vector<size_t> writes;
  Writer writer([&](std::string_view bytes) { writes.push_back(bytes.size()); }, Json::object());
  ASSERT_EQ(writes.size(), 1U) << "the header is written before any request";
  for (uint32_t i = 0; i < 10'000; ++i) writer.add(a_read(i, i % 4));
  // ~45 bytes a line: 450 KB in chunks of about 64 KiB, not one write per request.
  EXPECT_GE(writes.size(), 6U);
  EXPECT_LE(writes.size(), 9U);
  for (size_t i = 1; i < writes.size(); ++i) EXPECT_LT(writes[i], 70'000U);
  writer.finish(Json::object());
  EXPECT_EQ(writer.requests(), 10'000U);
}

TEST(RecordingFormat, ACutShortRecordingSaysSoWithTheByteWhereItEnds) {
  const std::string whole = written({a_read(0, 0), a_read(5, 1)});
  const size_t end_line = whole.find("end ");
  // Cut after the second request: no end line.
  EXPECT_EQ(error_of(whole.substr(0, end_line)),
            "rec: byte " + std::to_string(end_line) +
                ": the recording ends without its end line, after 2 requests: it was cut short "
                "(iotap record killed, or a full disk)");
  // Cut inside a request line.
  const size_t second = whole.find("5 1 R");
  EXPECT_EQ(error_of(whole.substr(0, second + 7)),
            "rec: byte " + std::to_string(second) +
                " (line 4): the recording ends inside a line: it was cut short (iotap record did "
                "not finish it)");
  EXPECT_EQ(error_of(""), "rec: byte 0: the file is empty: not an iotap recording");
}

TEST(RecordingFormat, EachBadFieldIsNamedWithItsLineAndByte) {
  const SecondRequest second;
  const auto with_second = [&](const std::string& line) { return error_of(second.as(line)); };
  const std::string at = second.where();
  EXPECT_EQ(with_second("5 1 Q 0 512 512 9 253:0 1 read"),
            at + "field 3 (OP) is 'Q', not R, W or F");
  EXPECT_EQ(with_second("5 x R 0 512 512 9 253:0 1 read"),
            at + "field 2 (THREAD) is 'x', not a thread number");
  EXPECT_EQ(with_second("5 1 R -1 512 512 9 253:0 1 read"),
            at + "field 4 (OFFSET) is '-1', not a byte offset");
  EXPECT_EQ(with_second("5 1 R 0 512 512 9 253 1 read"),
            at + "field 8 (DEV) is '253', not MAJ:MIN or -");
  EXPECT_EQ(with_second("5 1 R 0 512 512 9 253:0 2 read"),
            at + "field 9 (DIRECT) is '2', not 0 or 1");
  EXPECT_EQ(with_second("5 1 R 0 512 512 9 253:0 1"),
            at + "a request has 10 fields (START THREAD OP OFFSET SIZE RESULT LATENCY DEV DIRECT "
                 "CALL); this line has 9: '5 1 R 0 512 512 9 253:0 1'");
  EXPECT_EQ(with_second("5 1 R 0 512 512 9 253:0 1 read x"),
            at + "a request has 10 fields (START THREAD OP OFFSET SIZE RESULT LATENCY DEV DIRECT "
                 "CALL); this line has more");
}

TEST(RecordingFormat, AnotherFileOrAnotherVersionIsRefusedAtByteZero) {
  EXPECT_EQ(error_of("fio version 3 iolog\n"),
            "rec: byte 0 (line 1): not an iotap recording: its first line is 'fio version 3 "
            "iolog', not 'iotap-recording 1'");
  EXPECT_EQ(error_of("iotap-recording 2\nheader {}\nend {\"requests\":0}\n"),
            "rec: byte 0 (line 1): this iotap reads 'iotap-recording 1', not 'iotap-recording 2' "
            "(a newer iotap wrote it?)");
  EXPECT_EQ(error_of("iotap-recording 1\nheader {oops\nend {\"requests\":0}\n"),
            "rec: byte 18 (line 2): the header line's JSON object does not parse");
}

// issue 27: a byte the terminal would not show is shown escaped: a CR line end once read "reads
// 'iotap-recording 1', not 'iotap-recording 1'".
TEST(RecordingFormat, BytesThatDoNotPrintAreShownEscaped) {
  EXPECT_EQ(error_of("iotap-recording 1\r\nheader {}\r\nend {\"requests\":0}\r\n"),
            "rec: byte 0 (line 1): its lines end in CR LF ('iotap-recording 1\\r'), not LF: it "
            "was converted to DOS line ends (dos2unix puts it back)");
  EXPECT_EQ(error_of("iotap-recording 1 \x1b[2J\xff\tx\n"),
            "rec: byte 0 (line 1): this iotap reads 'iotap-recording 1', not 'iotap-recording 1 "
            "\\x1b[2J\\xff\\tx' (a newer iotap wrote it?)");
}

// issue 27: a directory given as the recording was said to be "empty".
TEST(RecordingFormat, ADirectoryIsNotReadAsAnEmptyFile) {
  try {
    read("/");
    ADD_FAILURE() << "read a directory";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), "/ is a directory, not a recording");
  }
}

TEST(RecordingFormat, TheEndLinesCountMustMatchAndNothingMayFollowIt) {
  EXPECT_EQ(error_of("iotap-recording 1\nheader {}\nend {\"requests\":3}\n"),
            "rec: byte 28 (line 3): the end line counts 3 requests; the recording holds 0");
  EXPECT_EQ(error_of("iotap-recording 1\nheader {}\nend {\"requests\":0}\nmore\n"),
            "rec: byte 47 (line 4): text after the end line: 'more'");
  const Recording empty = parse("iotap-recording 1\nheader {}\nend {\"requests\":0}\n", "rec");
  EXPECT_TRUE(empty.requests.empty());
}

// `iotap record -c` holds whatever bytes the user typed; the header still writes (issue 27: it
// threw "invalid UTF-8 byte" after a whole guest run, exit 70), with U+FFFD in their place.
TEST(RecordingFormat, ACommandThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  std::string out;
  Writer writer([&](std::string_view bytes) { out += bytes; },
                Json{{"command", "block_hasher -d x \xff\xfe"}});
  writer.add(a_read(0, 0));
  writer.finish(Json{{"note", "\xc3"}});
  const Recording recording = parse(out, "rec");
  EXPECT_EQ(recording.header()["command"], "block_hasher -d x \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(recording.end()["note"], "\xEF\xBF\xBD");
  EXPECT_EQ(recording.requests.size(), 1U);
}

// Each field a number in range, yet together no request that could have happened: refused
// with the line, not carried into the replayer's pacing and the reports as wrapped sums.
TEST(RecordingFormat, FieldsThatCannotBeRightTogetherAreRefused) {
  const SecondRequest second;
  const auto with_second = [&](const std::string& line) { return error_of(second.as(line)); };
  const std::string at = second.where();
  EXPECT_EQ(with_second("18446744073709551615 1 R 0 512 512 9 253:0 1 read"),
            at + "START + LATENCY (18446744073709551615 + 9 ns) is past the last time a "
                 "recording can hold (2^64 ns)");
  EXPECT_EQ(with_second("5 1 R 9223372036854775807 1048576 1048576 9 253:0 1 read"),
            at + "OFFSET + SIZE (9223372036854775807 + 1048576 bytes) is past the last byte a "
                 "file can have (2^63 - 1)");
  EXPECT_EQ(with_second("5 1 R 9223372036854775808 0 0 9 253:0 1 read"),
            at + "OFFSET + SIZE (9223372036854775808 + 0 bytes) is past the last byte a file can "
                 "have (2^63 - 1)");
  EXPECT_EQ(with_second("5 1 R 0 512 4096 9 253:0 1 read"),
            at + "RESULT 4096 is more bytes than the 512 its SIZE asked for");
  // The last byte a file can have, and a failed call's -errno, are fine.
  EXPECT_EQ(
      parse(second.as("5 1 R 9223372036854774783 1024 -5 9 253:0 1 read"), "rec").requests.size(),
      2U);
}

// iotap record's duration_ns is the latest START + LATENCY: a request ending after it means the
// lines were changed by hand, and the one that ends last is named.
TEST(RecordingFormat, ARequestEndingAfterTheRecordingsDurationIsRefused) {
  std::string out;
  Writer writer([&](std::string_view bytes) { out += bytes; }, Json::object());
  writer.add(a_read(0, 0));              // ends at 5'123'456
  writer.add(a_read(1'000'000'000, 1));  // ends at 1'005'123'456
  writer.add(a_read(7, 0));
  writer.finish(Json{{"duration_ns", 1'005'123'455}});
  const size_t second = out.find("1000000000 1 R");
  EXPECT_EQ(error_of(out), "rec: byte " + std::to_string(second) +
                               " (line 4): this request ends at 1005123456 ns (START + LATENCY), "
                               "after the end line's duration_ns 1005123455: the requests and the "
                               "end line disagree");
  std::string exact = out;
  exact.replace(exact.find("1005123455"), 10, "1005123456");
  EXPECT_EQ(parse(exact, "rec").requests.size(), 3U);
}

}  // namespace
}  // namespace iotap::recording
