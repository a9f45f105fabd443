# PostgreSQL in the guest (--postgres; docs/postgresql-guest.md). Sourced by init.sh from the
# run's files when run.conf says IOTAP_POSTGRES=1; /iotap/postgres.conf (guest/postgres_guest.h)
# sets IOTAP_PG_BIN, IOTAP_PG_TREES, IOTAP_PG_LIBRARY_PATH, IOTAP_PG_DEVICE, IOTAP_PG_ROWS,
# IOTAP_PG_DROP_CACHES, IOTAP_PG_PGBENCH_SCALE and IOTAP_PG_CLUSTER. The server's files come on
# the tools image, bind-mounted at their host paths: the probes name
# /usr/lib/postgresql/15/bin/postgres, compiled against the host's copy, and the same path must
# be the guest's executable (a symlink would give the task finder another name). Every step
# that fails says so in one line, with the server's log tail, and the run ends (exit 2 on the
# host).

iotap_pg_log=/pg/server.log

# iotap_pg_fail WHAT: the run's end, with the last lines of the server's log on the same line.
iotap_pg_fail() {
  local tail=""
  [ -f "$iotap_pg_log" ] && tail=$(tail -n 4 "$iotap_pg_log" | tr '\n' '|' | sed 's/|$//')
  iotap_fail "postgres: $1${tail:+ (server log: $tail)}"
}

# iotap_pg_as_user PROGRAM ARGS...: PROGRAM of PostgreSQL's bindir as the unprivileged user
# (initdb and postgres refuse root), with the client's settings; its output to the console.
iotap_pg_as_user() {
  /iotap/as-postgres "$IOTAP_PG_BIN/$@"
}

# The counters' query: the database's row, then the shared objects' row (datid 0: the shared
# catalogs, pg_database, pg_authid, ...), read once no other client backend is connected
# (waiting at most 20 s): a backend's counters are flushed before it leaves pg_stat_activity
# (before_shmem_exit runs before on_shmem_exit), so they hold every other session's reads. The
# reading session's own: a backend flushes its counters when it is idle outside a transaction
# (at most once a second) and when it ends, so the wait and the reading are one transaction, and
# what they read is flushed after it was read (pg_stat_activity's joins read pg_authid and
# pg_database).
iotap_pg_stats_query="BEGIN; DO \$\$ BEGIN
      FOR i IN 1..400 LOOP
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND pid <> pg_backend_pid());
        PERFORM pg_stat_clear_snapshot(); PERFORM pg_sleep(0.05);
      END LOOP; END \$\$; SELECT d.datid, d.blks_read, d.blks_hit, d.blk_read_time,
        d.blk_write_time, s.blks_read, s.blks_hit, s.blk_read_time
      FROM pg_stat_database d, pg_stat_database s
      WHERE d.datname = current_database() AND s.datid = 0; COMMIT;"

# iotap_pg_stats WHEN: the counters as a control line, pgstat WHEN DATID BLKS_READ BLKS_HIT
# BLK_READ_TIME_MS BLK_WRITE_TIME_MS SHARED_BLKS_READ SHARED_BLKS_HIT SHARED_BLK_READ_TIME_MS.
# "warm" and "before" read them from a connection of their own, before the server stops: "warm"
# brings the catalogs the query reads into the buffer pool, so "before"'s own reads are none.
# "after" reads them from the connection iotap_pg_stats_reader opened under the probes: a new
# connection's start reads catalog pages (7 of them after a pgbench run had evicted them),
# flushed before its first statement, which no probe would see. Before the run a failure ends
# it; after, the run's output still goes back, without the counters.
iotap_pg_stats() {
  local line
  if [ "$1" = after ]; then
    # No connection (the server did not start) or none left (it was ended in the run): no
    # counters, and nothing to wait for.
    if [ -s /iotap/pg-stats.pid ] && kill -0 "$(cat /iotap/pg-stats.pid)" 2>/dev/null; then
      printf '%s\n\\q\n' "$iotap_pg_stats_query" >&7
      read -r -t 60 line <&8 || line="no answer in 60 s"
      iotap_pg_stats_line "$1" "$line"
    elif [ -s /iotap/pg-stats.pid ]; then
      iotap_say "status postgres: no counters after the run: its connection ended"
    fi
    exec 7>&- 8<&-
  elif line=$(iotap_pg_as_user psql -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 \
    -c "$iotap_pg_stats_query"); then
    [ "$1" = warm ] || iotap_say "pgstat $1 $line"
  elif [ "$1" = before ]; then
    iotap_pg_fail "could not read pg_stat_database"
  fi
}

# iotap_pg_stats_line WHEN LINE: LINE as the counters' control line when it is numbers; else
# psql's error, said as the run's progress, and the run ends without the counters.
iotap_pg_stats_line() {
  case "$2" in
    *[!0-9.\ ]*) iotap_say "status postgres: no counters after the run: $2" ;;
    *) iotap_say "pgstat $1 $2" ;;
  esac
}

# iotap_pg_stats_reader: the pipes the "after" counters' connection reads its query from and
# writes its answer to (pg-traced opens that connection once the server is up). This shell keeps
# both ends open (fds 7 and 8): the connection sees no end of input before the query, and its
# output always has a reader.
iotap_pg_stats_reader() {
  mkfifo /iotap/pg-stats.in /iotap/pg-stats.out || iotap_pg_fail "could not make the counters' pipes"
  exec 7<>/iotap/pg-stats.in 8<>/iotap/pg-stats.out
}

# iotap_pg_user: the unprivileged user (uid 70, as Alpine's postgres), its home on the new file
# system, and the wrapper that runs a program as it with the client's environment.
iotap_pg_user() {
  mkdir -p /etc
  [ -f /etc/passwd ] || echo "root:x:0:0:root:/:/bin/sh" >/etc/passwd
  [ -f /etc/group ] || echo "root:x:0:" >/etc/group
  grep -q '^postgres:' /etc/passwd || echo "postgres:x:70:70:PostgreSQL:/pg:/bin/sh" >>/etc/passwd
  grep -q '^postgres:' /etc/group || echo "postgres:x:70:" >>/etc/group
  cat >/iotap/as-postgres <<EOF
#!/bin/sh
# Runs its arguments as postgres, with PostgreSQL's libraries and the server's socket.
export LD_LIBRARY_PATH='$IOTAP_PG_LIBRARY_PATH' PGHOST=/run/postgresql PGUSER=postgres
export PGDATABASE=\${PGDATABASE:-iotap} HOME=/pg TZ=UTC LC_ALL=C PATH='$IOTAP_PG_BIN':\$PATH
exec su -p -s /bin/sh -- postgres -c 'exec "\$0" "\$@"' "\$@"
EOF
  chmod 755 /iotap/as-postgres
}

# iotap_pg_dataset: the default data set, a table with an index, several times the buffer pool:
# IOTAP_PG_ROWS rows of about 100 bytes (81 to a page). Made in the transaction that creates the
# table, under wal_level=minimal: no WAL for its rows. VACUUM sets the hint bits and the
# visibility map, so a traced scan reads the pages and writes none.
iotap_pg_dataset() {
  iotap_pg_as_user psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE iotap" \
    >/dev/null || iotap_pg_fail "could not create the database iotap"
  iotap_say "status postgres: making the data set ($IOTAP_PG_ROWS rows)"
  iotap_pg_as_user psql -X -q -v ON_ERROR_STOP=1 \
    -c "CREATE TABLE iotap_data AS SELECT g AS id, md5(g::text) || md5((-g)::text) AS filler
        FROM generate_series(1, $IOTAP_PG_ROWS) AS g" \
    -c "CREATE INDEX iotap_data_id ON iotap_data (id)" -c "VACUUM ANALYZE iotap_data" \
    -c "CHECKPOINT" >/dev/null || iotap_pg_fail "could not make the data set"
}

# iotap_pg_pgbench_tables: pgbench's own tables (--pgbench-scale N: pgbench -i -s N, 100000
# accounts a unit) in database iotap, for pgbench -S and its other built-in scripts. pgbench -i
# vacuums them (hint bits set: a traced read writes nothing); the CHECKPOINT leaves the shutdown
# before the trace nothing to write. Its own output goes to a log, named when it fails.
iotap_pg_pgbench_tables() {
  [ "${IOTAP_PG_PGBENCH_SCALE:-0}" -gt 0 ] || return 0
  iotap_say "status postgres: making pgbench's tables (pgbench -i -s $IOTAP_PG_PGBENCH_SCALE)"
  iotap_pg_as_user pgbench -i -q -s "$IOTAP_PG_PGBENCH_SCALE" >/pg/pgbench-init.log 2>&1 &&
    iotap_pg_as_user psql -X -q -v ON_ERROR_STOP=1 -c "CHECKPOINT" >/dev/null || {
    iotap_pg_log=/pg/pgbench-init.log
    iotap_pg_fail "pgbench -i -s $IOTAP_PG_PGBENCH_SCALE failed"
  }
}

# iotap_pg_cluster: the cluster in /pg/data. The host made it with this PostgreSQL's initdb
# (guest/postgres_cluster.h, IOTAP_PG_CLUSTER: a tarball on the tools image, about 1 s to
# unpack where initdb here took 11 to 24 s under TCG); without one, initdb runs here.
iotap_pg_cluster() {
  if [ -n "${IOTAP_PG_CLUSTER:-}" ]; then
    iotap_say "status postgres: unpacking the cluster"
    tar -xf "/tools$IOTAP_PG_CLUSTER" -C /pg && chown -R postgres:postgres /pg/data &&
      chmod 700 /pg/data || iotap_fail "postgres: could not unpack /tools$IOTAP_PG_CLUSTER"
    return
  fi
  iotap_say "status postgres: initdb"
  iotap_pg_as_user initdb -D /pg/data -U postgres -A trust -E UTF8 --locale=C -N \
    >/pg/initdb.log 2>&1 || {
    iotap_pg_log=/pg/initdb.log
    iotap_pg_fail "initdb failed"
  }
}

# iotap_pg_server_start: the server on the data directory, once it accepts connections.
iotap_pg_server_start() {
  iotap_pg_as_user pg_ctl -D /pg/data -l "$iotap_pg_log" -w -t 120 start >/dev/null
}

# iotap_postgres_start: file system, cluster, server, data set (and pgbench's tables); then the
# counters read, the server stopped (a clean shutdown keeps them) and the page cache dropped. The server starts
# again inside the trace (/iotap/pg-traced, below), with an empty buffer pool.
iotap_postgres_start() {
  local tree
  iotap_say "status postgres: making ext4 on $IOTAP_PG_DEVICE"
  for tree in $IOTAP_PG_TREES; do
    mkdir -p "$tree" && mount --bind "/tools$tree" "$tree" ||
      iotap_fail "postgres: could not mount $tree from the tools image"
  done
  mkdir -p /dev/shm /pg /run/postgresql
  mount -t tmpfs -o mode=1777 shm /dev/shm
  # Inode tables and the journal made now, not by ext4lazyinit's writes during the trace.
  MKE2FS_CONFIG=/tools/etc/mke2fs.conf /tools/bin/mke2fs -q -F -t ext4 \
    -E lazy_itable_init=0,lazy_journal_init=0 "$IOTAP_PG_DEVICE" ||
    iotap_fail "postgres: mke2fs could not make ext4 on $IOTAP_PG_DEVICE"
  mount -t ext4 "$IOTAP_PG_DEVICE" /pg || iotap_fail "postgres: could not mount $IOTAP_PG_DEVICE"
  iotap_pg_user
  chown postgres:postgres /pg /run/postgresql
  iotap_pg_cluster
  cat >>/pg/data/postgresql.conf <<EOF
# iotap --postgres (docs/postgresql-guest.md)
listen_addresses = ''
unix_socket_directories = '/run/postgresql'
shared_buffers = 8MB
track_io_timing = on
autovacuum = off
jit = off
wal_level = minimal
max_wal_senders = 0
timezone = 'UTC'
log_timezone = 'UTC'
EOF
  iotap_say "status postgres: starting the server"
  iotap_pg_server_start || iotap_pg_fail "the server did not start"
  iotap_pg_dataset
  iotap_pg_pgbench_tables
  iotap_pg_stats warm
  iotap_pg_stats before
  iotap_pg_as_user pg_ctl -D /pg/data -w -t 120 -m fast stop >/dev/null ||
    iotap_pg_fail "the server did not stop"
  if [ "$IOTAP_PG_DROP_CACHES" = 1 ]; then
    sync
    echo 3 >/proc/sys/vm/drop_caches
    # PostgreSQL's own programs and libraries read back (about 85 MB from the tools image, a
    # disk outside the stack): a server's code is in memory on a machine that runs it, and
    # paging it in from the tools image would put that disk's reads inside the first queries
    # (in a pgbench run, 582 reads of 252:0 at 4.9 ms each, among the slowest queries).
    find "${IOTAP_PG_BIN%/bin}" $(echo "$IOTAP_PG_LIBRARY_PATH" | tr ':' ' ') -type f \
      -exec cat {} + >/dev/null 2>&1
  fi
  # staprun -c probes only the command's own processes and those they start (SystemTap's task
  # finder skips every other process in -c mode): the command's first process starts the
  # server, so its postmaster and every backend it forks are the command's descendants.
  cat >/iotap/pg-traced <<EOF
#!/bin/sh
# Starts the server, then runs its arguments as its user (iotap --postgres).
/iotap/as-postgres pg_ctl -D /pg/data -l $iotap_pg_log -w -t 120 start >/dev/null || {
  echo "iotap: postgres: the server did not start: \$(tail -n 3 $iotap_pg_log)" >&2
  exit 125
}
# The connection that reads the counters after the run, opened now: its start is traced.
/iotap/as-postgres psql -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 </iotap/pg-stats.in \
  >/iotap/pg-stats.out 2>&1 &
echo \$! >/iotap/pg-stats.pid
echo '\echo connected' >/iotap/pg-stats.in
read -r -t 60 connected </iotap/pg-stats.out
[ "\$connected" = connected ] || {
  echo "iotap: postgres: could not connect to read the counters: \$connected" >&2
  exit 125
}
exec /iotap/as-postgres "\$@"
EOF
  chmod 755 /iotap/pg-traced
  iotap_pg_stats_reader
}
