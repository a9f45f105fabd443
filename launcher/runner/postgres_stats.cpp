#include "iotap/runner/postgres_stats.h"

#include <charconv>
#include <sstream>
#include <string>

namespace iotap::runner {
namespace {

template <typename Number>
bool read_number(std::istringstream& words, Number& value) {
  std::string word;
  if (!(words >> word)) return false;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size();
}

}  // namespace

std::optional<PostgresStats> parse_postgres_stats(std::string_view fields) {
  std::istringstream words{std::string(fields)};
  PostgresStats stats;
  if (!read_number(words, stats.database_oid) || !read_number(words, stats.blks_read) ||
      !read_number(words, stats.blks_hit) || !read_number(words, stats.blk_read_time_ms) ||
      !read_number(words, stats.blk_write_time_ms) || !read_number(words, stats.shared_blks_read) ||
      !read_number(words, stats.shared_blks_hit) ||
      !read_number(words, stats.shared_blk_read_time_ms))
    return std::nullopt;
  std::string extra;
  if (words >> extra) return std::nullopt;
  return stats;
}

PostgresStats postgres_stats_difference(const PostgresStats& before, const PostgresStats& after) {
  // A counter that went back (pg_stat_reset(), a crash that lost them) counts nothing.
  const auto less = [](auto a, auto b) { return a > b ? a - b : decltype(a){0}; };
  return {.database_oid = after.database_oid,
          .blks_read = less(after.blks_read, before.blks_read),
          .blks_hit = less(after.blks_hit, before.blks_hit),
          .blk_read_time_ms = less(after.blk_read_time_ms, before.blk_read_time_ms),
          .blk_write_time_ms = less(after.blk_write_time_ms, before.blk_write_time_ms),
          .shared_blks_read = less(after.shared_blks_read, before.shared_blks_read),
          .shared_blks_hit = less(after.shared_blks_hit, before.shared_blks_hit),
          .shared_blk_read_time_ms =
              less(after.shared_blk_read_time_ms, before.shared_blk_read_time_ms)};
}

}  // namespace iotap::runner
