#include "iotap/session/postgres_options.h"

#include <array>
#include <boost/program_options.hpp>
#include <cstdio>
#include <vector>

#include "iotap/util/error.h"
#include "iotap/util/quoting.h"

namespace iotap::session {

namespace po = boost::program_options;

void add_postgres_options(po::options_description& description, TargetOptions& options) {
  description.add_options()(
      "postgres", po::bool_switch(&options.postgres.start),
      "with --target vm: start PostgreSQL 15 in the guest before the trace, its data directory "
      "on ext4 made on the stack's top device, with a data set (table iotap_data, indexed on "
      "id) four times its 8 MB buffer pool; then restart it and drop the page cache. -c runs "
      "as its user, with PGHOST and PGDATABASE (iotap) set: -c 'psql -c \"SELECT ...\"' or -c "
      "'pgbench -n -T 10 -f FILE' just work (-c 'pgbench -S ...' with --pgbench-scale)")(
      "sql",
      po::value<std::vector<std::string>>()
          ->composing()
          ->value_name("STATEMENT")
          ->notifier([&options](const std::vector<std::string>& statements) {
            if (!options.command_line.empty())
              throw UserError(
                  "--sql runs its statements with psql, -c runs your own command: give one of "
                  "them (-c 'psql -c ...' for both)");
            options.command_line = kSqlClient;
            for (const auto& statement : statements)
              options.command_line += " -c " + single_quoted(statement);
            options.postgres.command_from_sql = true;
          }),
      "with --postgres: run STATEMENT with psql as the traced command (repeatable: one psql, the "
      "statements in order, stopping at the first that fails)")(
      "postgres-rows",
      positive_number(kPostgresRowsOption,
                      [&options](uint64_t rows) { options.postgres.rows = rows; })
          ->value_name("N"),
      "with --postgres: the data set's rows, about 100 bytes each (default 300000: a 29 MiB "
      "table and a 7 MiB index)")(
      "pgbench-scale",
      positive_number(kPgbenchScaleOption,
                      [&options](uint64_t scale) { options.postgres.pgbench_scale = scale; })
          ->value_name("N"),
      "with --postgres: also make pgbench's own tables (pgbench -i -s N: 100000 accounts, "
      "15 MiB, a unit) before the restart, for -c 'pgbench -S ...'")(
      "keep-page-cache", po::bool_switch(&options.postgres.keep_page_cache),
      "with --postgres: do not drop the guest's page cache before the traced command (the buffer "
      "pool is empty either way)");
}

void check_postgres_options(const TargetOptions& options) {
  const PostgresOptions& postgres = options.postgres;
  if (!postgres.start) {
    const char* companion = postgres.command_from_sql     ? "--sql"
                            : postgres.rows != 0          ? "--postgres-rows"
                            : postgres.pgbench_scale != 0 ? "--pgbench-scale"
                            : postgres.keep_page_cache    ? "--keep-page-cache"
                                                          : nullptr;
    if (companion != nullptr)
      throw UserError(std::string(companion) +
                      " goes with --postgres, which starts the server it talks to: add "
                      "--postgres --target vm --stack SPEC");
    return;
  }
  if (options.target != Target::kVm)
    throw UserError(
        "--postgres starts PostgreSQL in a guest: add --target vm (on this machine or an ssh:// "
        "host, trace the server already running there: -c 'psql ...' or -x PID)");
  if (options.stack_text.empty())
    throw UserError(
        "--postgres puts its data directory on the stack's top device: add --stack SPEC, e.g. "
        "--stack 'raid0(ram*2)'");
}

std::optional<guest::PostgresRun> postgres_run(const TargetOptions& options,
                                               const std::optional<stack_spec::StackPlan>& stack) {
  if (!options.postgres.start || !stack) return std::nullopt;
  guest::PostgresRun run;
  run.install = guest::require_postgres_install();
  run.device = stack->top_path();
  if (options.postgres.rows != 0) run.rows = options.postgres.rows;
  run.drop_caches = !options.postgres.keep_page_cache;
  run.pgbench_scale = options.postgres.pgbench_scale;
  return run;
}

std::string postgres_program_dir(const TargetOptions& options) {
  if (!options.postgres.start) return "";
  return guest::require_postgres_install().bin_dir;
}

std::optional<std::string> postgres_server(const TargetOptions& options) {
  if (!options.postgres.start) return std::nullopt;
  return guest::require_postgres_install().server();
}

Json postgres_stats_json(const std::optional<runner::PostgresStats>& stats) {
  if (!stats) return nullptr;
  // 0: the whole server's counters, every database summed (attached, not --postgres).
  return {{"database_oid", stats->database_oid == 0 ? Json(nullptr) : Json(stats->database_oid)},
          {"blks_read", stats->blks_read},
          {"blks_hit", stats->blks_hit},
          {"blk_read_time_ms", stats->blk_read_time_ms},
          {"blk_write_time_ms", stats->blk_write_time_ms},
          {"shared",
           {{"blks_read", stats->shared_blks_read},
            {"blks_hit", stats->shared_blks_hit},
            {"blk_read_time_ms", stats->shared_blk_read_time_ms}}}};
}

namespace {

std::string milliseconds(double ms) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.1f ms", ms);
  return text.data();
}

}  // namespace

std::string postgres_stats_text(const std::optional<runner::PostgresStats>& stats,
                                const Json& levels) {
  if (!stats) return "";
  uint64_t smgr_reads = 0;
  double smgr_ms = 0;
  for (const auto& level : levels) {
    if (level.value("name", "") != "smgr_read") continue;
    smgr_reads = level.value("count", uint64_t{0});
    smgr_ms = level["latency_us"].value("mean", 0.0) * static_cast<double>(smgr_reads) / 1000;
  }
  const uint64_t blocks = stats->blks_read + stats->shared_blks_read;
  std::string text =
      "postgres: the server counted " + std::to_string(blocks) +
      " blocks read from the kernel (pg_stat_database: " + std::to_string(stats->blks_read) +
      (stats->database_oid == 0 ? " in its databases, " : " in the database, ") +
      std::to_string(stats->shared_blks_read) + " in shared catalogs); iotap saw " +
      std::to_string(smgr_reads) + " smgr reads";
  // track_io_timing's: 0 when it is off.
  if (stats->blk_read_time_ms > 0)
    text += "; read time " + milliseconds(stats->blk_read_time_ms) + " by its clock, " +
            milliseconds(smgr_ms) + " by iotap's";
  return text + "\n";
}

}  // namespace iotap::session
