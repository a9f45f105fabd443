// A shared guest's ports stay open between runs: a run's streams end at the guest's marker line.
#include "stream_end.h"

#include <gtest/gtest.h>

#include <set>

namespace iotap::guest {
namespace {

constexpr const char* kMarker = "iotap-end-0123456789abcdef\n";

TEST(StreamEnd, PassesEverythingBeforeTheMarkerWhateverTheReadSizes) {
  const std::string body = "event 1\nevent 2\na last line without its newline";
  const std::string stream = body + kMarker;
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    std::string passed;
    StreamEnd end(kMarker, [&passed](std::string_view bytes) { passed += bytes; });
    for (size_t at = 0; at < stream.size(); at += chunk) {
      EXPECT_FALSE(end.ended()) << "chunk " << chunk;
      end.feed(stream.substr(at, chunk));
    }
    EXPECT_TRUE(end.ended()) << "chunk " << chunk;
    end.finish();
    EXPECT_EQ(passed, body) << "chunk " << chunk;
  }
}

TEST(StreamEnd, ALineIsPassedOnAtOnceNotWhenTheNextComes) {
  std::string passed;
  StreamEnd end(kMarker, [&passed](std::string_view bytes) { passed += bytes; });
  end.feed("started\n");
  EXPECT_EQ(passed, "started\n");  // a live script's first line, with nothing after it yet
  end.feed("half a line, then io");
  EXPECT_EQ(passed, "started\nhalf a line, then ");  // "io" may begin the marker
  end.feed("tap-end-0123456789abcdef\n");
  EXPECT_TRUE(end.ended());
  EXPECT_EQ(passed, "started\nhalf a line, then ");
}

TEST(StreamEnd, AnotherRunsMarkerIsOutputNotTheEnd) {
  std::string passed;
  StreamEnd end(kMarker, [&passed](std::string_view bytes) { passed += bytes; });
  end.feed("iotap-end-ffffffffffffffff\n");
  end.feed("iotap-end-0123456789abcde");  // cut short: the stream closed here
  EXPECT_FALSE(end.ended());
  end.finish();
  EXPECT_EQ(passed, "iotap-end-ffffffffffffffff\niotap-end-0123456789abcde");
}

// A background child of the program (sh -c 'sleep 5 & ...') writes on after the run's end, until
// the guest's teardown kills it: its bytes may come in the same read as the marker.
TEST(StreamEnd, BytesAfterTheMarkerInTheSameReadAreNotTheRuns) {
  const std::string stream = std::string("x\n") + kMarker + "late\n";
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    std::string passed;
    StreamEnd end(kMarker, [&passed](std::string_view bytes) { passed += bytes; });
    for (size_t at = 0; at < stream.size(); at += chunk) end.feed(stream.substr(at, chunk));
    EXPECT_TRUE(end.ended()) << "chunk " << chunk;
    end.finish();
    EXPECT_EQ(passed, "x\n") << "chunk " << chunk;
  }
}

TEST(StreamEnd, AnEmptyStreamEndsAtOnce) {
  std::string passed;
  StreamEnd end(kMarker, [&passed](std::string_view bytes) { passed += bytes; });
  end.feed(kMarker);
  EXPECT_TRUE(end.ended());
  EXPECT_EQ(passed, "");
}

TEST(StreamEnd, EachRunHasItsOwnMarker) {
  std::set<std::string> markers;
  for (int i = 0; i < 100; ++i) {
    const std::string marker = new_stream_end_marker();
    EXPECT_EQ(marker.size(), std::string(kMarker).size()) << marker;
    EXPECT_TRUE(marker.starts_with("iotap-end-") && marker.ends_with("\n")) << marker;
    markers.insert(marker);
  }
  EXPECT_EQ(markers.size(), 100U);
}

}  // namespace
}  // namespace iotap::guest
