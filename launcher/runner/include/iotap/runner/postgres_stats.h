#pragma once
// PostgreSQL's own account of its reads (pg_stat_database, with track_io_timing on), read by the
// guest before and after a --postgres run (guest/postgres.sh's "pgstat" control lines): the
// ground truth iotap's smgr read counts and times are held to.
#include <cstdint>
#include <optional>
#include <string_view>

namespace iotap::runner {

struct PostgresStats {
  // datid: the database the probes' `database` argument names; 0 when the counters are the
  // whole server's, every database's row summed (attached to a running server).
  uint64_t database_oid = 0;
  uint64_t blks_read = 0;        // buffer reads that missed the buffer pool (each an smgr read)
  uint64_t blks_hit = 0;         // buffer reads the pool served
  double blk_read_time_ms = 0;   // time in those smgr reads, as the backends timed them
  double blk_write_time_ms = 0;  // time in the backends' own writes
  // pg_stat_database's row for shared objects (datid 0): the shared catalogs (pg_database,
  // pg_authid, ...), read by every backend at its start. Their smgr reads carry database 0, so
  // they are not in blks_read above; their time is (PostgreSQL 15 adds a backend's read time
  // to its own database's row), and this row's blk_read_time stays 0.
  uint64_t shared_blks_read = 0;
  uint64_t shared_blks_hit = 0;
  double shared_blk_read_time_ms = 0;
};

// What a run attached to a server says once it has read the counters before it: they are read
// again at its end, and the difference goes beside iotap's counts (--json's "postgres").
inline constexpr std::string_view kPostgresCountersRead =
    "postgres: the server's counters read (pg_stat_database), again at the end, to set beside "
    "iotap's";

// "DATID BLKS_READ BLKS_HIT BLK_READ_TIME BLK_WRITE_TIME SHARED_BLKS_READ SHARED_BLKS_HIT
// SHARED_BLK_READ_TIME" as psql prints them; nullopt when a field is missing or not a number.
std::optional<PostgresStats> parse_postgres_stats(std::string_view fields);

// What the run added: after's counters less before's (the database of `after`); a counter that
// went back (pg_stat_reset()) counts 0.
PostgresStats postgres_stats_difference(const PostgresStats& before, const PostgresStats& after);

}  // namespace iotap::runner
