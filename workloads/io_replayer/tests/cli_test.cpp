// The io_replayer binary on a file and a recording the test writes: every request replayed,
// writes only when allowed, pacing that cannot finish before the recorded times, a smaller file
// scaled with a warning, a damaged recording named with its byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "iotap/recording/recording.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace {

using iotap::Captured;
using iotap::TempDir;
using iotap::recording::Json;
using iotap::recording::Request;

class ReplayerCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text;
    iotap::recording::Writer writer([&](std::string_view b) { text += b; },
                                    Json{{"program", "test"}});
    // Two threads of eight 64 KiB reads, 2 ms apart; then a write at offset 0 and its
    // fdatasync. The last starts at 21 ms.
    for (uint32_t t = 0; t < 2; ++t) {
      for (uint64_t k = 0; k < 8; ++k) {
        writer.add(Request{.start_ns = (t * 8 + k) * 1'000'000 + t * 500'000,
                           .thread = t,
                           .op = 'R',
                           .offset = (t + 2 * k) * 65536,
                           .size = 65536,
                           .result = 65536,
                           .latency_ns = 100'000,
                           .dev = "9:0",
                           .direct = false,
                           .call = "pread64"});
      }
    }
    writer.add(Request{.start_ns = 20'000'000,
                       .thread = 1,
                       .op = 'W',
                       .offset = 0,
                       .size = 4096,
                       .result = 4096,
                       .latency_ns = 10,
                       .dev = "9:0",
                       .direct = false,
                       .call = "pwrite64"});
    writer.add(Request{.start_ns = 21'000'000,
                       .thread = 1,
                       .op = 'F',
                       .offset = 0,
                       .size = 0,
                       .result = 0,
                       .latency_ns = 10,
                       .dev = "9:0",
                       .direct = false,
                       .call = "fdatasync"});
    writer.finish(Json::object());
    iotap::write_file(recording_, text);
    std::ofstream(data_).close();
    std::filesystem::resize_file(data_, 1 << 20);
  }
  Captured replay(std::vector<std::string> args) {
    args.insert(args.begin(), IO_REPLAYER_BIN);
    return iotap::capture(args);
  }
  TempDir dir_{"io-replayer-cli-test"};
  std::string recording_ = dir_.path() + "/t.rec";
  std::string data_ = dir_.path() + "/data";
};

TEST_F(ReplayerCli, EveryRequestOfEveryThreadIsReplayedNoSoonerThanRecorded) {
  const Captured run = replay({"-r", recording_, "-d", data_, "--allow-writes", "--json"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["requests"], 18);
  EXPECT_EQ(report["reads"], 16);
  EXPECT_EQ(report["writes"], 1);
  EXPECT_EQ(report["flushes"], 1);
  EXPECT_EQ(report["threads"], 2);
  EXPECT_EQ(report["errors"], 0);
  EXPECT_EQ(report["bytes"], 16 * 65536 + 4096);
  // --pace recorded: the last request is issued no sooner than 21 ms after the start.
  EXPECT_GE(report["elapsed_ns"].get<uint64_t>(), 21'000'000U);
  EXPECT_EQ(report["pacing_error_us"]["gaps"], 16);
  // The write wrote its pattern at offset 0.
  EXPECT_EQ(iotap::read_file(data_).substr(0, 4), "abcd");
}

TEST_F(ReplayerCli, ARecordingThatWritesIsRefusedWithoutAllowWrites) {
  const Captured run = replay({"-r", recording_, "-d", data_});
  EXPECT_EQ(run.status.code, 2);
  EXPECT_EQ(run.err,
            "io_replayer: the recording writes (1 write) and would overwrite " + data_ +
                ": add --allow-writes if that is what you want (iotap replay --target vm does, on "
                "the devices it builds)\n");
  EXPECT_EQ(iotap::read_file(data_), std::string(1 << 20, '\0')) << "nothing was written";
}

TEST_F(ReplayerCli, ASmallerFileGetsScaledOffsetsAndAWarning) {
  std::filesystem::resize_file(data_, 256 << 10);
  const Captured run =
      replay({"-r", recording_, "-d", data_, "--allow-writes", "--pace", "fast", "--json"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_NE(run.err.find("io_replayer: warning: the recording spans 1048576 bytes and " + data_ +
                         " holds 262144: offsets scaled by 0.25 (to 4096-byte boundaries)"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["errors"], 0);
}

TEST_F(ReplayerCli, ACutRecordingIsNamedWithTheByteWhereItEnds) {
  const std::string text = iotap::read_file(recording_);
  iotap::write_file(recording_, text.substr(0, text.find("end ")));
  const Captured run = replay({"-r", recording_, "-d", data_});
  EXPECT_EQ(run.status.code, 2);
  EXPECT_EQ(run.err, "io_replayer: " + recording_ + ": byte " + std::to_string(text.find("end ")) +
                         ": the recording ends without its end line, after 18 requests: it was "
                         "cut short (iotap record killed, or a full disk)\n");
}

}  // namespace
