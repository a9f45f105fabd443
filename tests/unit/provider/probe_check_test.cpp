// A provider held to a binary's probes (provider/probe_check.h, catalog.h): a program of a
// user's own built here, and PostgreSQL 15's server when this machine has it.
#include "iotap/provider/probe_check.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iotap/provider/catalog.h"
#include "iotap/util/error.h"

namespace iotap::provider {
namespace {

const char* const kPostgres = "/usr/lib/postgresql/15/bin/postgres";

Provider usdt_requests(const std::string& replace = "", const std::string& with = "") {
  Provider p = read_provider(USDT_REQUESTS_PROVIDER);
  if (replace.empty()) return p;
  for (auto& level : p.levels)
    for (ProbeUse* use : {&level.begin, &level.end})
      if (use->name == replace) use->args = std::stoi(with);
  return p;
}

TEST(ProbeCheck, AProgramWithEveryProbeAndCountMatches) {
  EXPECT_EQ(probe_mismatch(usdt_requests(), USDT_REQUESTS), "");
  const auto found = provider_of(USDT_REQUESTS, {usdt_requests()});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->name, "usdt_requests");
  EXPECT_EQ(probed_program(*found, USDT_REQUESTS), USDT_REQUESTS);
}

TEST(ProbeCheck, AnotherArgumentCountNamesTheProbeAndBothCounts) {
  const std::string problem = probe_mismatch(usdt_requests("request_done", "3"), USDT_REQUESTS);
  EXPECT_EQ(problem, std::string(USDT_REQUESTS) +
                         " has usdt_requests:request_done with 2 arguments; " +
                         USDT_REQUESTS_PROVIDER +
                         ":18 expects 3 (a provider file is written for one version of its "
                         "program)");
  EXPECT_FALSE(provider_of(USDT_REQUESTS, {usdt_requests("request_done", "3")}).has_value());
}

TEST(ProbeCheck, AMissingProbeIsNamed) {
  Provider p = usdt_requests();
  p.levels[1].end.name = "request_end";
  EXPECT_EQ(probe_mismatch(p, USDT_REQUESTS),
            std::string(USDT_REQUESTS) + " has no probe usdt_requests:request_end (" +
                USDT_REQUESTS_PROVIDER + ":18 expects it, with 2 arguments; 'iotap probes " +
                USDT_REQUESTS + "' lists those it has)");
}

TEST(ProbeCheck, AProgramWithoutProbesMatchesNone) {
  EXPECT_NE(probe_mismatch(usdt_requests(), "/bin/true").find("/bin/true has no USDT probes"),
            std::string::npos);
  EXPECT_FALSE(provider_of("/bin/true", bundled_providers(PROVIDERS_DIR)).has_value());
  EXPECT_FALSE(provider_of("", bundled_providers(PROVIDERS_DIR)).has_value());
}

TEST(ProbeCheck, TheWorkloadsAreChosenByTheirProbes) {
  const auto providers = bundled_providers(PROVIDERS_DIR);
  EXPECT_EQ(provider_of(BLOCK_HASHER_PATH, providers)->name, "block_hasher");
  EXPECT_EQ(provider_of(IO_REPLAYER_PATH, providers)->name, "io_replayer");
}

// The -c program of a database run is its client: the server is the provider's own program.
TEST(ProbeCheck, PostgresqlsProbesAreOnItsServerNotOnTheClient) {
  ASSERT_TRUE(std::filesystem::exists(kPostgres))
      << kPostgres << " is not installed (setup.sh installs postgresql-15)";
  const Provider pg = find_provider("postgresql", PROVIDERS_DIR);
  EXPECT_EQ(probe_mismatch(pg, kPostgres), "");
  EXPECT_EQ(provider_of(kPostgres, bundled_providers(PROVIDERS_DIR))->name, "postgresql");
  EXPECT_EQ(probed_program(pg, "/usr/bin/psql"), kPostgres);
  EXPECT_EQ(probed_program(pg, kPostgres), kPostgres);
}

}  // namespace
}  // namespace iotap::provider
