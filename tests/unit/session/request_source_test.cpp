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

// PostgreSQL's client is traced (-c psql), its server probed: the provider's own program.
TEST(RequestSource, APostgresqlRunProbesTheServerWithAGeneratedScript) {
  const ChosenSource chosen = choose_request_source("/usr/bin/psql", "usdt:postgresql");
  EXPECT_EQ(chosen.source, engine::RequestSource::usdt);
  EXPECT_EQ(chosen.provider, "postgresql");
  EXPECT_EQ(chosen.script, "");
  EXPECT_EQ(chosen.probed_program, "/usr/lib/postgresql/15/bin/postgres");
  EXPECT_NE(chosen.generated_script.find(
                "process(\"/usr/lib/postgresql/15/bin/postgres\").mark(\"query__start\")"),
            std::string::npos);
  EXPECT_EQ(chosen.why,
            "following psql's queries through /usr/lib/postgresql/15/bin/postgres's USDT probes "
            "(provider postgresql: query, buffer_read, smgr_read, smgr_write)");
  const auto levels = request_levels(chosen);
  ASSERT_EQ(levels.size(), 4U);
  EXPECT_EQ(levels[0].name, "query");
  EXPECT_EQ(levels[0].plural, "queries");
  EXPECT_EQ(levels[3].name, "smgr_write");
}

TEST(RequestSource, AProviderFileOfTheUsersOwnIsFollowed) {
  const std::string file = USDT_REQUESTS_PROVIDER;
  const ChosenSource chosen = choose_request_source(USDT_REQUESTS, "usdt:" + file);
  EXPECT_EQ(chosen.provider, "usdt_requests");
  EXPECT_EQ(chosen.probed_program, USDT_REQUESTS);
  EXPECT_EQ(chosen.why,
            "following usdt_requests's batches through its USDT probes (provider usdt_requests: "
            "batch, read)");
  EXPECT_EQ(request_levels(chosen).size(), 2U);
  // Only the bundled providers are chosen without being named.
  EXPECT_EQ(choose_request_source(USDT_REQUESTS, "").source, engine::RequestSource::syscall);
}

TEST(RequestSource, AProviderWhoseProbesTheProgramLacksIsRefused) {
  try {
    (void)choose_request_source("/bin/true", "usdt:" + std::string(USDT_REQUESTS_PROVIDER));
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--requests usdt:" + std::string(USDT_REQUESTS_PROVIDER) +
                  ": /bin/true has no usdt_requests probes: trace a program that has them (-c "
                  "or -x), or install it");
  }
}

TEST(RequestSource, TheWorkloadsHaveNoLevelsForTheEngine) {
  EXPECT_TRUE(request_levels(choose_request_source(BLOCK_HASHER_PATH, "")).empty());
  EXPECT_TRUE(request_levels(choose_request_source("/bin/true", "")).empty());
  EXPECT_EQ(choose_request_source(BLOCK_HASHER_PATH, "usdt:block_hasher").script, "events.stp");
}

}  // namespace
}  // namespace iotap::session
