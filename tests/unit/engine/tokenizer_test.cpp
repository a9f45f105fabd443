#include "tokenizer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <string>
#include <vector>

namespace iotap::engine {
namespace {

Event parse(std::string_view line, LineKind expected = LineKind::event) {
  Event event;
  const Tokenized t = tokenize(line, event);
  EXPECT_EQ(t.kind, expected) << line << (t.error != nullptr ? t.error : "");
  return event;
}

TEST(Tokenizer, ReadStart) {
  const Event e = parse("RS 1795378543002944710 1 6 142 1 0 0 0 1048576");
  EXPECT_EQ(e.kind, Kind::read_start);
  EXPECT_EQ(e.ts, 1795378543002944710U);
  EXPECT_EQ(e.cpu, 1U);
  EXPECT_EQ(e.seq, 6U);
  EXPECT_EQ(e.tid, 142);
  EXPECT_EQ(e.id, 1U);
  EXPECT_EQ(e.thread, 0);
  EXPECT_EQ(e.block, 0U);
  EXPECT_EQ(e.offset, 0U);
  EXPECT_EQ(e.size, 1048576U);
}

TEST(Tokenizer, ReadDoneWithErrno) {
  const Event e = parse("RD 1795378543061830120 1 201 142 7 -5");
  EXPECT_EQ(e.kind, Kind::read_done);
  EXPECT_EQ(e.id, 7U);
  EXPECT_EQ(e.value, -5);
}

TEST(Tokenizer, SyscallStart) {
  const Event e = parse("SS 1795472852607448880 1 18 168 pwritev2 9437184 103 4096 65536 1");
  EXPECT_EQ(e.kind, Kind::sys_start);
  EXPECT_EQ(e.tid, 168);
  EXPECT_EQ(kSyscalls[e.syscall].name, "pwritev2");
  EXPECT_EQ(e.rw, 'W');
  EXPECT_EQ(e.dev, 9437184U);
  EXPECT_EQ(e.inode, 103U);
  EXPECT_EQ(e.offset, 4096U);
  EXPECT_EQ(e.size, 65536U);
  EXPECT_TRUE(e.direct);
  EXPECT_EQ(parse("SS 1 0 1 7 fdatasync 9437184 103 0 0 0").rw, 'F');
  EXPECT_EQ(parse("SS 1 0 1 7 read 9437184 103 0 4096 0").rw, 'R');
}

TEST(Tokenizer, SyscallDone) {
  const Event e = parse("SD 1795472852491671960 1 2 168 -5");
  EXPECT_EQ(e.kind, Kind::sys_done);
  EXPECT_EQ(e.value, -5);
}

TEST(Tokenizer, BlockHashersRunStartSaysWhetherItReadsWithODirect) {
  const Event e = parse("RB 1795378543002944710 0 1 139 1");
  EXPECT_EQ(e.kind, Kind::run_start);
  EXPECT_TRUE(e.direct);
  EXPECT_FALSE(parse("RB 1 0 1 139 0").direct);
  parse("RB 1 0 1 139 2", LineKind::malformed);
  parse("RB 1 0 1 139", LineKind::malformed);
}

TEST(Tokenizer, ReplayedRequestsAreReadsWritesOrFlushesWithTheirODirect) {
  const Event e = parse("US 1795378543002944710 1 6 142 17 3 W 65536 4096 1");
  EXPECT_EQ(e.kind, Kind::read_start);
  EXPECT_EQ(e.id, 17U);
  EXPECT_EQ(e.thread, 3);
  EXPECT_EQ(e.rw, 'W');
  EXPECT_EQ(e.offset, 65536U);
  EXPECT_EQ(e.size, 4096U);
  EXPECT_TRUE(e.direct);
  EXPECT_EQ(parse("US 1 0 1 7 1 0 F 0 0 0").rw, 'F');
  EXPECT_EQ(parse("US 1 0 1 7 1 0 R 0 512 0").rw, 'R');
  EXPECT_EQ(parse("RS 1 0 1 7 1 0 0 0 512").rw, 'R') << "a block_hasher read is a read";
  parse("US 1 0 1 7 1 0 Q 0 512 0", LineKind::malformed);
  parse("US 1 0 1 7 1 0 R 0 512", LineKind::malformed);
  const Event done = parse("UD 1795378543061830120 1 201 142 17 -28");
  EXPECT_EQ(done.kind, Kind::read_done);
  EXPECT_EQ(done.id, 17U);
  EXPECT_EQ(done.value, -28);
}

TEST(Tokenizer, SyscallLinesThatDoNotParse) {
  parse("SS 1 0 1 7 openat 9437184 103 0 4096 0", LineKind::malformed);  // not a call it follows
  parse("SS 1 0 1 7 read 9437184 103 0 4096 2", LineKind::malformed);    // O_DIRECT is 0 or 1
  parse("SS 1 0 1 7 read 9437184 103 0 4096", LineKind::malformed);
  parse("SD 1 0 1 7", LineKind::malformed);
  parse("SD 1 0 1 7 5 6", LineKind::malformed);
}

TEST(Tokenizer, QueueWithHexAddress) {
  const Event e = parse("Q 1795378543012462720 1 7 142 ff2e07a4003d3c48 9437184 0 1048576 R");
  EXPECT_EQ(e.kind, Kind::queue);
  EXPECT_EQ(e.id, 0xff2e07a4003d3c48U);
  EXPECT_EQ(e.dev, 9437184U);
  EXPECT_EQ(e.sector, 0U);
  EXPECT_EQ(e.bytes, 1048576U);
  EXPECT_EQ(e.rw, 'R');
}

TEST(Tokenizer, Split) {
  const Event e =
      parse("X 1795378543013125620 1 8 142 ff1beb25251cee40 ff2e07a4003d3c48 0 126976 W");
  EXPECT_EQ(e.kind, Kind::split);
  EXPECT_EQ(e.id, 0xff1beb25251cee40U);
  EXPECT_EQ(e.parent, 0xff2e07a4003d3c48U);
  EXPECT_EQ(e.bytes, 126976U);
  EXPECT_EQ(e.rw, 'W');
}

TEST(Tokenizer, Remap) {
  const Event e =
      parse("M 1795378543013440830 1 9 142 ff1beb2525193310 1048576 4096 126976 9437184 2048");
  EXPECT_EQ(e.kind, Kind::remap);
  EXPECT_EQ(e.id, 0xff1beb2525193310U);
  EXPECT_EQ(e.dev, 1048576U);
  EXPECT_EQ(e.sector, 4096U);
  EXPECT_EQ(e.bytes, 126976U);
  EXPECT_EQ(e.from_dev, 9437184U);
  EXPECT_EQ(e.from_sector, 2048U);
}

TEST(Tokenizer, CompleteWithError) {
  const Event e = parse("C 1795378543013440830 0 10 0 ff1beb2525193310 10");
  EXPECT_EQ(e.kind, Kind::complete);
  EXPECT_EQ(e.tid, 0);
  EXPECT_EQ(e.value, 10);
}

TEST(Tokenizer, RequestIssueAndComplete) {
  const Event i = parse(
      "I 1795378543013466740 2 9 142 ff1beb2525190000 265289728 4096 131072 "
      "ff1beb2525193310");
  EXPECT_EQ(i.kind, Kind::rq_issue);
  EXPECT_EQ(i.id, 0xff1beb2525190000U);
  EXPECT_EQ(i.dev, 265289728U);
  EXPECT_EQ(i.sector, 4096U);
  EXPECT_EQ(i.bytes, 131072U);
  EXPECT_EQ(i.parent, 0xff1beb2525193310U);
  const Event d = parse("D 1795378543023466740 0 31 0 ff1beb2525190000 265289728 4096 131072 10");
  EXPECT_EQ(d.kind, Kind::rq_complete);
  EXPECT_EQ(d.id, 0xff1beb2525190000U);
  EXPECT_EQ(d.dev, 265289728U);
  EXPECT_EQ(d.sector, 4096U);
  EXPECT_EQ(d.bytes, 131072U);
  EXPECT_EQ(d.value, 10);
  parse("D 1795378543023466740 0 31 0 ff1beb2525190000 265289728 4096 131072", LineKind::malformed);
  parse("I 1795378543013466740 2 9 142 ff1beb2525190000 265289728 4096 131072 zz",
        LineKind::malformed);
}

TEST(Tokenizer, ToleratesAlignmentSpacesAndCarriageReturn) {
  const Event e = parse("Q  1795378543012462720 1 7 142 ff2e07a4003d3c48 9437184 0 1048576 R\r");
  EXPECT_EQ(e.ts, 1795378543012462720U);
  EXPECT_EQ(e.rw, 'R');
}

TEST(Tokenizer, HeaderAndOtherLines) {
  parse("iotap-events 1", LineKind::header);
  parse("thread 0: 8 blocks, 8.0 MiB in 0.513 s", LineKind::other);
  parse("", LineKind::other);
  parse("Quit", LineKind::other);
  parse("total: 64 blocks", LineKind::other);
}

TEST(Tokenizer, MalformedLines) {
  for (const char* line : {
           "Q 1795378543012462720 1 7 142 ff2e07a4003d3c48 9437184 0",           // short
           "Q 1795378543012462720 1 7 142 zz2e07a4003d3c48 9437184 0 4096 R",    // not hex
           "Q 1795378543012462720 1 7 142 ff2e07a4003d3c48 9437184 0 4096 R x",  // extra
           "Q 1795378543012462720 1 7 142 ff2e07a4003d3c48 9437184 0 4096 Z",    // bad rw
           "C 17953785430124627x0 1 7 142 ff 0",                                 // bad ts
           "C 1795378543012462720 1 7 142 ff",                                   // no error
           "RS 1 1 1 1 1 1 1 1",                                                 // short
           "RD 1 1 1 1 1 99999999999999999999999",                               // overflow
           "M 1 1 1 1 ff 99999999999 0 4096 9437184 0",                          // dev > 32 bits
           "X 1 1 1 1 ff",                                                       // cut off
           "C 1795378543012462720 65536 7 142 ff 0",                             // CPU over 16 bits
           "Q 1795378543012462720 1 7 142 ff 9437184 0 4294967296 R",            // BYTES over 32
       })
    parse(line, LineKind::malformed);
  // The largest CPU and BYTES an Event keeps.
  const Event e = parse("Q 1795378543012462720 65535 7 142 ff 9437184 0 4294967295 R");
  EXPECT_EQ(e.cpu, 65535U);
  EXPECT_EQ(e.bytes, 4294967295U);
}

TEST(Tokenizer, EveryDecimalFieldReadsAsFromCharsReadsIt) {
  // Numbers are read eight bytes at a time where the line has eight more bytes: every length
  // (1 to 21 digits, past UINT64_MAX), every position (so the field's end falls at each byte of
  // a word, and within 8 bytes of the line's end) and a field that runs into a non-digit must
  // give what std::from_chars gives: the value, or a malformed line.
  std::vector<std::string> numbers = {"0",
                                      "18446744073709551615",
                                      "18446744073709551616",
                                      "99999999999999999999",
                                      "00000000000000000001",
                                      "12a"};
  std::string digits;
  for (int n = 1; n <= 21; ++n) {
    digits += static_cast<char>('0' + (n * 7) % 10);
    numbers.push_back(digits);
  }
  for (const std::string& number : numbers) {
    uint64_t expected = 0;
    const auto [end, ec] =
        std::from_chars(number.data(), number.data() + number.size(), expected, 10);
    const bool valid = ec == std::errc() && end == number.data() + number.size();
    for (int pad = 0; pad < 9; ++pad) {
      // The number as SEQ (mid-line), and as RS's SIZE (the line's last field), after a TID of
      // 1 to 9 digits.
      const std::string tid(static_cast<size_t>(pad + 1), '7');
      std::string mid = "RD 1 0 ";
      mid.append(number).append(" ").append(tid).append(" 5 0");
      std::string last = "RS 1 0 3 ";
      last.append(tid).append(" 5 0 0 0 ").append(number);
      Event a;
      Event b;
      EXPECT_EQ(tokenize(mid, a).kind, valid ? LineKind::event : LineKind::malformed) << mid;
      EXPECT_EQ(tokenize(last, b).kind, valid ? LineKind::event : LineKind::malformed) << last;
      if (valid) {
        EXPECT_EQ(a.seq, expected) << mid;
        EXPECT_EQ(b.size, expected) << last;
      }
    }
  }
}

TEST(LineSplitter, LinesStraddleChunks) {
  const std::string stream = "iotap-events 1\nQ 1 0 1 5 ff 9437184 0 4096 R\nC 2 0 2 5 ff 0\nlast";
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    LineSplitter splitter;
    std::vector<std::string> lines;
    for (size_t at = 0; at < stream.size(); at += chunk)
      splitter.feed(
          std::string_view(stream).substr(at, chunk),
          [&](std::string_view line) { lines.emplace_back(line); }, [] { FAIL(); });
    splitter.finish([&](std::string_view line) { lines.emplace_back(line); });
    ASSERT_EQ(lines.size(), 4U) << "chunk " << chunk;
    EXPECT_EQ(lines[1], "Q 1 0 1 5 ff 9437184 0 4096 R");
    EXPECT_EQ(lines[3], "last");
  }
}

TEST(LineSplitter, OverlongLineIsDroppedNotKept) {
  LineSplitter splitter(16);
  std::vector<std::string> lines;
  int overlong = 0;
  const auto on_line = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.feed("short\n0123456789", on_line, [&] { ++overlong; });
  splitter.feed("0123456789abcdef", on_line, [&] { ++overlong; });
  splitter.feed("tail\nnext\n", on_line, [&] { ++overlong; });
  splitter.finish(on_line);
  EXPECT_EQ(overlong, 1);
  EXPECT_EQ(lines, (std::vector<std::string>{"short", "next"}));
}

}  // namespace
}  // namespace iotap::engine
