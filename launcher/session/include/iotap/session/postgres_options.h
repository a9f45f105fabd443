#pragma once
// --postgres and its companions (--sql, --postgres-rows, --pgbench-scale, --keep-page-cache):
// PostgreSQL started in the guest on the stack, the -c command run as its user
// (guest/postgres_guest.h, docs/postgresql-guest.md). Every verb with a target has them
// (add_target_options).
#include <boost/program_options/options_description.hpp>
#include <optional>
#include <string>

#include "iotap/guest/postgres_guest.h"
#include "iotap/runner/runner.h"
#include "iotap/session/number_option.h"
#include "iotap/session/target_options.h"
#include "iotap/stack_spec/stack_plan.h"
#include "iotap/util/json_text.h"

namespace iotap::session {

inline constexpr NumberOption kPostgresRowsOption{"--postgres-rows", "a positive number of rows",
                                                  "rows", 100'000'000};
// pgbench's scale: 100000 accounts (15 MiB with their index) a unit. 1000 is 15 GiB, more than
// any guest disk iotap makes.
inline constexpr NumberOption kPgbenchScaleOption{"--pgbench-scale", "a positive scale factor", "",
                                                  1000};

// The psql that --sql runs its statements with: one -c each, in order; ON_ERROR_STOP, so a
// failing statement is the command's failure (psql exits 1, 3 in a script).
inline constexpr const char* kSqlClient = "psql -X -v ON_ERROR_STOP=1";

void add_postgres_options(boost::program_options::options_description& description,
                          TargetOptions& options);

// What add_postgres_options cannot check: --postgres only with --target vm and --stack, its
// companions only with it, --sql not with -c. Throws UserError.
void check_postgres_options(const TargetOptions& options);

// What the guest is asked to do; nullopt without --postgres (or without a stack to put it on).
std::optional<guest::PostgresRun> postgres_run(const TargetOptions& options,
                                               const std::optional<stack_spec::StackPlan>& stack);

// With --postgres: PostgreSQL's bindir, where -c's bare names (psql, pgbench) are looked up
// before the project's workloads and PATH (Debian's /usr/bin/psql is a Perl wrapper that picks a
// cluster). Empty otherwise.
std::string postgres_program_dir(const TargetOptions& options);

// With --postgres: the server's executable, the path the probes name (process("...")): the
// same in the guest. nullopt otherwise.
std::optional<std::string> postgres_server(const TargetOptions& options);

// --postgres, or attached to a server: what PostgreSQL counted over the run (pg_stat_database,
// after - before), for the JSON of run, attribute and diagnose (`postgres`); null without it.
Json postgres_stats_json(const std::optional<runner::PostgresStats>& stats);

// The same beside iotap's smgr reads (`levels`, the report's JSON), for the text report: "postgres:
// the server counted 303 blocks read ... iotap saw 303 smgr reads ..."; empty without them.
std::string postgres_stats_text(const std::optional<runner::PostgresStats>& stats,
                                const Json& levels);

}  // namespace iotap::session
