#include "iotap/runner/postgres_stats.h"

#include <gtest/gtest.h>

#include "iotap/runner/control_protocol.h"

namespace iotap::runner {
namespace {

TEST(PostgresStats, ReadsPsqlsFields) {
  const std::optional<PostgresStats> stats =
      parse_postgres_stats("16384 1340 2098 1280.475 0 8 40 0");
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->database_oid, 16384U);
  EXPECT_EQ(stats->blks_read, 1340U);
  EXPECT_EQ(stats->blks_hit, 2098U);
  EXPECT_DOUBLE_EQ(stats->blk_read_time_ms, 1280.475);
  EXPECT_DOUBLE_EQ(stats->blk_write_time_ms, 0.0);
  EXPECT_EQ(stats->shared_blks_read, 8U) << "the shared catalogs' row, datid 0";
  EXPECT_EQ(stats->shared_blks_hit, 40U);
  EXPECT_DOUBLE_EQ(stats->shared_blk_read_time_ms, 0.0);
}

TEST(PostgresStats, RefusesMissingExtraAndNonNumbers) {
  EXPECT_FALSE(parse_postgres_stats("16384 1340 2098 1280.475"));
  EXPECT_FALSE(parse_postgres_stats("16384 1340 2098 1280.475 0")) << "no shared objects' row";
  EXPECT_FALSE(parse_postgres_stats("16384 1340 2098 1280.475 0 8 40 0 7"));
  EXPECT_FALSE(parse_postgres_stats("16384 many 2098 1280.475 0 8 40 0"));
  EXPECT_FALSE(parse_postgres_stats(""));
}

TEST(PostgresStats, TheRunIsAfterLessBeforeAndACounterThatWentBackCountsNothing) {
  const PostgresStats before{.database_oid = 5,
                             .blks_read = 10,
                             .blks_hit = 100,
                             .blk_read_time_ms = 1.5,
                             .blk_write_time_ms = 2,
                             .shared_blks_read = 3};
  const PostgresStats after{.database_oid = 5,
                            .blks_read = 1350,
                            .blks_hit = 90,
                            .blk_read_time_ms = 1281.5,
                            .blk_write_time_ms = 2,
                            .shared_blks_read = 11};
  const PostgresStats run = postgres_stats_difference(before, after);
  EXPECT_EQ(run.database_oid, 5U);
  EXPECT_EQ(run.blks_read, 1340U);
  EXPECT_EQ(run.blks_hit, 0U) << "a reset between the readings: no count, not 2^64 - 10";
  EXPECT_DOUBLE_EQ(run.blk_read_time_ms, 1280.0);
  EXPECT_DOUBLE_EQ(run.blk_write_time_ms, 0.0);
  EXPECT_EQ(run.shared_blks_read, 8U);
}

TEST(ControlLine, PgstatIsBeforeOrAfterWithTheCounters) {
  const ControlLine line = parse_control_line("pgstat before 16384 10 20 0.5 0 3 5 0");
  ASSERT_EQ(line.kind, ControlLine::Kind::kPgStat);
  EXPECT_EQ(line.text, "before");
  EXPECT_EQ(line.postgres_stats.blks_read, 10U);
  EXPECT_EQ(parse_control_line("pgstat during 16384 10 20 0.5 0 3 5 0").kind,
            ControlLine::Kind::kMalformed);
  EXPECT_EQ(parse_control_line("pgstat after 16384").kind, ControlLine::Kind::kMalformed);
}

TEST(GuestReport, PostgresStatsAreTheRunsOnlyWhenBothWereReported) {
  GuestReport report;
  EXPECT_FALSE(report.postgres_stats());
  report.feed("pgstat before 16384 10 20 0.5 0 3 5 0");
  EXPECT_FALSE(report.postgres_stats()) << "the run did not end";
  report.feed("pgstat after 16384 1350 40 1280.5 0 11 9 0");
  ASSERT_TRUE(report.postgres_stats());
  EXPECT_EQ(report.postgres_stats()->blks_read, 1340U);
  EXPECT_EQ(report.postgres_stats()->blks_hit, 20U);
  EXPECT_EQ(report.postgres_stats()->shared_blks_read, 8U);
}

}  // namespace
}  // namespace iotap::runner
