// Binary records (docs/event-format.md, version 2): the layout the document gives, each event
// reading as its text line reads, and the framing of a stream that mixes records and lines.
#include "record.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "iotap/engine.h"
#include "iotap/records_as_text.h"
#include "tokenizer.h"

namespace iotap::engine {
namespace {

// The bytes of a little-endian integer of `width` bytes, written out by hand.
std::string le(uint64_t value, size_t width) {
  std::string out;
  for (size_t i = 0; i < width; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return out;
}

void expect_same_event(const Event& a, const Event& b, const std::string& what) {
  EXPECT_EQ(a.kind, b.kind) << what;
  EXPECT_EQ(a.ts, b.ts) << what;
  EXPECT_EQ(a.cpu, b.cpu) << what;
  EXPECT_EQ(a.seq, b.seq) << what;
  EXPECT_EQ(a.tid, b.tid) << what;
  EXPECT_EQ(a.rw, b.rw) << what;
  EXPECT_EQ(a.id, b.id) << what;
  EXPECT_EQ(a.parent, b.parent) << what;
  EXPECT_EQ(a.dev, b.dev) << what;
  EXPECT_EQ(a.from_dev, b.from_dev) << what;
  EXPECT_EQ(a.sector, b.sector) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.from_sector, b.from_sector) << what;
  EXPECT_EQ(a.value, b.value) << what;
  EXPECT_EQ(a.thread, b.thread) << what;
  EXPECT_EQ(a.block, b.block) << what;
  EXPECT_EQ(a.offset, b.offset) << what;
  EXPECT_EQ(a.size, b.size) << what;
  EXPECT_EQ(a.syscall, b.syscall) << what;
  EXPECT_EQ(a.direct, b.direct) << what;
  EXPECT_EQ(a.inode, b.inode) << what;
}

// docs/event-format.md's Q record, byte by byte.
TEST(Record, AQueuedBioIsTheLayoutTheFormatDocumentGives) {
  const std::string line = "Q 1795440303089137750 1 2 171 ff51a7abc04d3cc8 9437184 0 1048576 R";
  const std::string expected =
      std::string("\x1e\x06\x34R", 4) + le(1, 4) + le(171, 4) + le(1795440303089137750ULL, 8) +
      le(2, 8) + le(0xff51a7abc04d3cc8ULL, 8) + le(9437184, 4) + le(0, 8) + le(1048576, 4);
  ASSERT_EQ(expected.size(), 52U);
  std::string record;
  ASSERT_TRUE(encode_line(line, record));
  EXPECT_EQ(record, expected);

  Event event;
  ASSERT_EQ(decode_record(expected, event).kind, LineKind::event);
  EXPECT_EQ(event.kind, Kind::queue);
  EXPECT_EQ(event.ts, 1795440303089137750ULL);
  EXPECT_EQ(event.cpu, 1U);
  EXPECT_EQ(event.seq, 2U);
  EXPECT_EQ(event.tid, 171);
  EXPECT_EQ(event.id, 0xff51a7abc04d3cc8ULL);
  EXPECT_EQ(event.dev, 9437184U);
  EXPECT_EQ(event.sector, 0U);
  EXPECT_EQ(event.bytes, 1048576U);
  EXPECT_EQ(event.rw, 'R');
}

// One line of every kind that has a record form, from recorded streams.
const std::vector<std::string> kLines = {
    "RB 1795378543002900000 0 1 142 1",
    "RS 1795378543002944710 1 6 142 1 0 0 0 1048576",
    "RD 1795378543061830120 1 201 142 7 -5",
    "US 1795378543002944710 1 6 142 3 1 W 8192 4096 1",
    "UD 1795378543061830120 1 201 142 3 0",
    "Q 1795440303089137750 1 2 171 ff51a7abc04d3cc8 9437184 0 1048576 R",
    "X 1795440303089976760 1 3 171 ff117b9a454f1240 ff51a7abc04d3cc8 0 126976 -",
    "M 1795440303093854350 0 46 171 ff117b9a43814910 1048576 4096 126976 9437184 0",
    "C 1795440303093942240 0 48 171 ff117b9a43814910 -10",
    "I 1795440303093942240 0 49 0 ff117b9a43814a00 265289728 18446744073709551615 0 0",
    "D 1795440303093999240 1 50 0 ff117b9a43814a00 265289728 2048 4096 0",
    "SS 1795472852607448880 1 18 168 pwritev2 9437184 103 4096 65536 1",
    "SD 1795472852491671960 1 2 168 -5",
};

TEST(Record, EveryKindReadsAsItsTextLineReads) {
  for (const std::string& line : kLines) {
    std::string record;
    ASSERT_TRUE(encode_line(line, record)) << line;
    EXPECT_EQ(record[0], kRecordMarker) << line;
    EXPECT_EQ(static_cast<unsigned char>(record[2]), record.size()) << line;
    Event from_text;
    ASSERT_EQ(tokenize(line, from_text).kind, LineKind::event) << line;
    Event from_record;
    ASSERT_EQ(decode_record(record, from_record).kind, LineKind::event) << line;
    expect_same_event(from_record, from_text, line);
  }
}

// `iotap run` shows a record as the line the probes printed before records: the same bytes.
TEST(Record, EachRecordShowsAsTheLineItStandsFor) {
  for (const std::string& line : kLines) {
    std::string record;
    ASSERT_TRUE(encode_line(line, record)) << line;
    std::string text;
    ASSERT_TRUE(text_of_record(record, text)) << line;
    EXPECT_EQ(text, line);
  }
  std::string later;
  ASSERT_TRUE(encode_line(kLines[8], later));
  later[1] = 100;
  std::string text;
  EXPECT_FALSE(text_of_record(later, text));
  EXPECT_TRUE(text.empty());
}

// Text goes through at once, even without its newline (a live script's prompt); a record once
// whole; bytes that are no record a reader knows, as they came.
TEST(Record, RecordsAsTextPassesTextOnAtOnceAndShowsRecordsAsLines) {
  std::string shown;
  RecordsAsText as_text([&shown](std::string_view bytes) { shown += bytes; });
  as_text.feed("iotap-events 2\npress a key: ");
  EXPECT_EQ(shown, "iotap-events 2\npress a key: ");
  as_text.feed("y\n");
  std::string q;
  ASSERT_TRUE(encode_line(kLines[5], q));
  as_text.feed(q.substr(0, 20));
  EXPECT_EQ(shown, "iotap-events 2\npress a key: y\n");
  as_text.feed(q.substr(20));
  EXPECT_EQ(shown, "iotap-events 2\npress a key: y\n" + kLines[5] + "\n");
  std::string later = q;
  later[1] = 100;
  as_text.feed(later);
  as_text.feed(q);  // after a record no reader knows, a record is still shown as its line
  as_text.feed("end\n");
  const std::string cut_short = q.substr(0, 10);
  as_text.feed(cut_short);
  as_text.finish();
  EXPECT_EQ(shown, "iotap-events 2\npress a key: y\n" + kLines[5] + "\n" + later + kLines[5] +
                       "\nend\n" + cut_short);
}

// The probes' iotap_record calls (tapsets/iotap_events.stp, examples/events.stp,
// replay_events.stp) write each record with the field widths the engine reads, as many fields as
// the kind has (the rest 0), and so the LENGTH it reads: every code, once.
TEST(Record, TheTapsetsWriteEachRecordAsTheEngineReadsIt) {
  const std::regex record_call(
      R"re(iotap_record\((\d+), (?:stringat\(\w+, 0\)|\w+), (\d+), ([^\n]*)\)\n)re");
  std::map<unsigned, int> written;
  for (const char* file :
       {"/tapsets/iotap_events.stp", "/examples/events.stp", "/examples/replay_events.stp"}) {
    std::ifstream in(std::string(SOURCE_DIR) + file);
    ASSERT_TRUE(in) << file;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator it(text.begin(), text.end(), record_call), end; it != end; ++it) {
      const unsigned code = std::stoul((*it)[1]);
      const std::string widths = (*it)[2];
      std::string format;
      unsigned length = 28;
      for (const char width : widths) {
        format += std::string("%") + width + "b";
        length += width - '0';
      }
      EXPECT_EQ(format, record_fields_format(code)) << file << ", code " << code;
      EXPECT_EQ(length, record_length(code)) << file << ", code " << code;
      std::vector<std::string> fields;
      std::istringstream list((*it)[3].str());
      for (std::string field; std::getline(list, field, ',');) fields.push_back(field);
      ASSERT_EQ(fields.size(), 6U) << file << ", code " << code;
      for (size_t i = widths.size(); i < fields.size(); ++i)
        EXPECT_EQ(fields[i], " 0") << file << ", code " << code << ", field " << i + 1;
      ++written[code];
    }
  }
  for (unsigned code = 1; code <= 11; ++code) EXPECT_EQ(written[code], 1) << "code " << code;
  EXPECT_EQ(record_length(12), 64U);  // SS and SD: syscall_events.stp still prints their lines
  EXPECT_EQ(record_length(14), 0U);
}

TEST(Record, ProviderEventsAndOtherLinesHaveNoRecordForm) {
  std::string out;
  EXPECT_FALSE(encode_line("PB 1 0 1 7 0 5 - 0 0 0", out));
  EXPECT_FALSE(encode_line("PT 1 0 2 7 0 5 SELECT 1", out));
  EXPECT_FALSE(encode_line("iotap-events 2", out));
  EXPECT_FALSE(encode_line("thread 0: 8 blocks", out));
  EXPECT_TRUE(out.empty());
}

TEST(Record, AFieldOutOfRangeIsMalformedAndALaterVersionsCodeIsNotAnEvent) {
  const auto record_of = [](const std::string& line) {
    std::string out;
    EXPECT_TRUE(encode_line(line, out)) << line;
    return out;
  };
  Event event;
  std::string q = record_of(kLines[5]);
  q[3] = 'Z';  // RW
  EXPECT_EQ(decode_record(q, event).kind, LineKind::malformed);
  std::string rb = record_of(kLines[0]);
  rb[kRecordHead] = 2;  // DIRECT
  EXPECT_EQ(decode_record(rb, event).kind, LineKind::malformed);
  std::string ss = record_of(kLines[11]);
  ss[kRecordHead] = 12;  // CALL: there are 12 calls, 0 to 11
  EXPECT_EQ(decode_record(ss, event).kind, LineKind::malformed);
  std::string c = record_of(kLines[8]);
  c.push_back('\0');
  c[2] = static_cast<char>(c.size());  // C's length is 40
  EXPECT_EQ(decode_record(c, event).kind, LineKind::malformed);
  std::string cpu = record_of(kLines[8]);
  const uint32_t past_cpus = 65536;  // CPU, u32 at byte 4: an Event keeps 16 bits
  std::memcpy(cpu.data() + 4, &past_cpus, sizeof past_cpus);
  EXPECT_EQ(decode_record(cpu, event).kind, LineKind::malformed);
  std::string later = record_of(kLines[8]);
  later[1] = 100;
  EXPECT_EQ(decode_record(later, event).kind, LineKind::other);
  std::string none = record_of(kLines[8]);
  none[1] = 0;
  EXPECT_EQ(decode_record(none, event).kind, LineKind::other);
}

// The units LineSplitter cuts `stream` into, fed in two pieces cut at `cut`.
std::vector<std::string> split_at(std::string_view stream, size_t cut) {
  LineSplitter splitter;
  std::vector<std::string> got;
  const auto keep = [&got](std::string_view unit) { got.emplace_back(unit); };
  splitter.feed(stream.substr(0, cut), keep, [] {});
  splitter.feed(stream.substr(cut), keep, [] {});
  splitter.finish(keep);
  return got;
}

// Records hold newline bytes (0x0a in a sector, a length of 10 in a field): the splitter frames
// them by their length, wherever the stream is cut.
TEST(Record, AStreamOfRecordsAndLinesCutAnywhereSplitsTheSame) {
  std::vector<std::string> units = {"iotap-events 2"};
  std::string stream = units[0] + "\n";
  for (const std::string& line : kLines) {
    std::string record;
    ASSERT_TRUE(encode_line(line, record));
    units.push_back(record);
    stream += record;
    if (line[0] == 'D') {
      units.emplace_back("block_hasher: thread 1 done");
      stream += units.back() + "\n";
    }
  }
  std::string newline_inside;
  ASSERT_TRUE(encode_line("Q 10 0 10 10 a0a0a 10 10 10 W", newline_inside));
  ASSERT_NE(newline_inside.find('\n'), std::string::npos);
  units.push_back(newline_inside);
  stream += newline_inside;
  units.emplace_back("last line");
  stream += "last line";

  for (size_t cut = 1; cut <= stream.size(); ++cut)
    EXPECT_EQ(split_at(stream, cut), units) << "cut at " << cut;
}

// A marker whose length could not hold a record's head starts a line, not a record.
TEST(Record, AMarkerWithTooShortALengthIsALine) {
  const std::string stream = std::string("\x1e\x06\x05 not a record\nnext\n");
  for (size_t cut = 1; cut <= stream.size(); ++cut)
    EXPECT_EQ(split_at(stream, cut),
              (std::vector<std::string>{"\x1e\x06\x05 not a record", "next"}))
        << "cut at " << cut;
}

// The engine counts a record it cannot read as malformed, a later version's as another line,
// and passes neither on as the program's text.
TEST(Record, TheEngineCountsRecordsItCannotReadAndPassesNoneOnAsText) {
  std::vector<std::string> passed_on;
  Options options;
  options.other_line = [&passed_on](std::string_view line) { passed_on.emplace_back(line); };
  Engine engine({}, options);
  std::string stream = "iotap-events 2\nthe program's line\n";
  std::string rb;
  ASSERT_TRUE(encode_line(kLines[0], rb));
  std::string later = rb;
  later[1] = 100;
  std::string bad = rb;
  bad[kRecordHead] = 7;
  stream += rb + later + bad;
  engine.feed(stream);
  const Result result = engine.finish();
  EXPECT_EQ(passed_on, std::vector<std::string>{"the program's line"});
  EXPECT_EQ(result.loss.malformed_lines, 1U);
  EXPECT_EQ(result.events, 1U);
  EXPECT_EQ(result.stream.other_lines, 3U);  // the header, the program's line, the later record
}

}  // namespace
}  // namespace iotap::engine
