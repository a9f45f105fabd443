// Which requests attribute and diagnose follow (session/request_source.h): the program's own
// USDT probes when iotap knows them, else its system calls; --requests overrides.
#include "iotap/session/request_source.h"

#include <gtest/gtest.h>

#include "iotap/util/error.h"

namespace iotap::session {
namespace {

TEST(RequestSource, BlockHashersProbesAreFollowed) {
  EXPECT_EQ(known_usdt_provider(BLOCK_HASHER_PATH), "block_hasher");
  const ChosenSource chosen = choose_request_source(BLOCK_HASHER_PATH, "");
  EXPECT_EQ(chosen.source, engine::RequestSource::usdt);
  EXPECT_EQ(chosen.script, "events.stp");
  EXPECT_NE(chosen.why.find("block_hasher's reads through its USDT probes"), std::string::npos)
      << chosen.why;
}

TEST(RequestSource, TheReplayersProbesAreFollowedWithTheReplayScript) {
  EXPECT_EQ(known_usdt_provider(IO_REPLAYER_PATH), "io_replayer");
  const ChosenSource chosen = choose_request_source(IO_REPLAYER_PATH, "");
  EXPECT_EQ(chosen.source, engine::RequestSource::usdt);
  EXPECT_EQ(chosen.script, "replay_events.stp");
  EXPECT_NE(chosen.why.find("io_replayer's replayed requests through its USDT probes"),
            std::string::npos)
      << chosen.why;
}

TEST(RequestSource, AProgramWithoutThemIsFollowedThroughItsSystemCalls) {
  EXPECT_EQ(known_usdt_provider("/bin/true"), "");
  const ChosenSource chosen = choose_request_source("/bin/true", "");
  EXPECT_EQ(chosen.source, engine::RequestSource::syscall);
  EXPECT_EQ(chosen.script, "syscall_events.stp");
  EXPECT_NE(chosen.why.find("true's I/O system calls (it has no USDT probes iotap knows)"),
            std::string::npos)
      << chosen.why;
}

TEST(RequestSource, RequestsOptionOverrides) {
  EXPECT_EQ(choose_request_source(BLOCK_HASHER_PATH, "syscall").source,
            engine::RequestSource::syscall);
  EXPECT_EQ(choose_request_source(BLOCK_HASHER_PATH, "usdt").source, engine::RequestSource::usdt);
}

TEST(RequestSource, UsdtOfAProgramWithoutTheProbesIsAnError) {
  try {
    (void)choose_request_source("/bin/true", "usdt");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--requests usdt: /bin/true has no USDT probes iotap "
                                         "knows"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)choose_request_source("/bin/true", "usdtt"), UserError);
}

}  // namespace
}  // namespace iotap::session
