# iotap's agent on a host reached with --target ssh://HOST (launcher/remote/ssh_target.cpp).
#
# It is not installed there: iotap sends this text as the argument of `sh -c` on each ssh
# connection, with the subcommand and its arguments after it, so the host needs nothing of
# iotap's, only a POSIX sh, coreutils or busybox, and SystemTap's runtime (staprun). Every
# argument is a word iotap quoted; nothing here evaluates what a user typed.
#
#   probe PID PROGRAM   what iotap must know before it compiles: "fact NAME VALUE" lines (the
#                       kernel release, the machine, staprun, the privilege, the -x process's
#                       executable, the -c program's digest, the /proc/modules lines of iotap's
#                       modules). PID and PROGRAM are "-" when not asked about.
#   kallsyms            /proc/kallsyms (root only: kernel.kptr_restrict hides it from others)
#   upload SIZE NAME    a private directory /tmp/iotap-ssh.XXXXXX holding stdin (SIZE bytes) as
#                       NAME.ko (NAME: the run's own module name, iotap_ and hex digits, which
#                       staprun loads it as); prints its path. Directories that earlier runs
#                       left are removed first.
#   run DIR STDOUT MODE TARGET NSTAP STAPRUN_OPTIONS... MODULE_OPTIONS...
#                       staprun DIR/NAME.ko, MODE "c" (TARGET is the command, one string quoted
#                       for staprun's wordexp), "x" (TARGET is a pid), "pg" (none: attached to a
#                       PostgreSQL server, TARGET its psql, which reads the server's counters
#                       before the module loads and after it goes) or "-"; STDOUT "stderr"
#                       puts the -c program's stdout on stderr. The module's output is this
#                       connection's stdout; staprun's and the program's stderr its stderr, with
#                       "iotap-ctl LINE" control lines there too, never while staprun runs: the
#                       block stack as the guest reports it ("node", "md", "dm":
#                       runner/control_protocol.h), the disk statistics before and after,
#                       "status ...", "pgstat ..." (MODE pg), "exit N".
#   pgstat WHEN PSQL    the server's counters, as MODE pg reads them, and
#   pgconnect PSQL      its connection at the stop (--target local's).
#                       A line "stop" on stdin, or its end (the connection gone), stops staprun
#                       as Ctrl-C does. DIR goes with the run, and the module with staprun.

iotap_fact() { echo "fact $1 $2"; }

# iotap_pg_psql PSQL ARGS...: the server's own psql, as the OS user postgres, over its default
# socket, from / (postgres may not enter the login's directory: its programs warn of it).
iotap_pg_psql() {
  su -s /bin/sh -- postgres -c 'cd / && exec "$0" "$@"' "$@" </dev/null 2>&1
}

# iotap_pg_counters WHEN PSQL: a PostgreSQL server's counters as a control line, "pgstat WHEN 0
# BLKS_READ BLKS_HIT BLK_READ_TIME BLK_WRITE_TIME" summed over its databases, then the shared
# objects' row (runner/postgres_stats.h); a status line when they cannot be read (the run goes
# on). A backend adds what it read to them at its start, when it is idle (at most once a
# second) and when it ends. "before" comes before the module loads: read twice a second apart,
# the second kept, so that what the first read (catalogs) is in it. "after" comes once the
# module has gone: it reads nothing at its start, as iotap_pg_connect read the same catalogs
# under the probes, and what its statement reads is added after it.
iotap_pg_counters() {
  local line sums="" column
  for column in blks_read blks_hit blk_read_time blk_write_time; do
    sums="$sums, coalesce(sum($column) FILTER (WHERE datid <> 0), 0)"
  done
  for column in blks_read blks_hit blk_read_time; do
    sums="$sums, coalesce(sum($column) FILTER (WHERE datid = 0), 0)"
  done
  set -- "$1" "$2" -X -q -A -t -F ' ' -d postgres -v ON_ERROR_STOP=1 \
    -c "SELECT 0$sums FROM pg_stat_database"
  [ "$1" = before ] && set -- "$@" -c 'SELECT pg_sleep(1)' -c "SELECT 0$sums FROM pg_stat_database"
  local when=$1
  shift
  if line=$(iotap_pg_psql "$@"); then
    iotap_say "pgstat $when $(echo "$line" | tail -n 1)"
  else
    # psql's own line (its error, which a hint may follow), or whatever came last.
    iotap_say "status postgres: no counters $when the run: $(echo "$line" | grep -m 1 -e error \
      -e FATAL || echo "$line" | tail -n 1)"
  fi
}

# iotap_pg_connect PSQL: a connection to the server and no statement (no query probe fires),
# made under the probes at the stop: the catalogs a connection's start reads are read, and
# counted, while iotap sees them.
iotap_pg_connect() {
  iotap_pg_psql "$1" -X -q -d postgres -c '\q' >/dev/null
}

# iotap_say LINE: a control line, on stderr during a run (stdout is the module's stream).
iotap_say() { echo "iotap-ctl $*" >&2; }

# iotap_stack: the block stacks this host has, as control lines (iotap_device_lines, from
# runner/device_lines.sh, is sent ahead of this text).
iotap_stack() {
  # Each md or dm device without holders tops a stack; its slaves are its members, walked
  # depth first. Numbers are the order of discovery; 0 is the parent of a top.
  local count=0
  iotap_walk() {
    # /sys/class/block has partitions too (md over sda1, LVM over sda3), /sys/block only disks.
    local name="$1" parent="$2" sys="/sys/class/block/$1" id spec
    count=$((count + 1))
    id=$count
    spec=$name
    if [ -d "$sys/md" ]; then
      spec=$(cat "$sys/md/level")
    elif [ -d "$sys/dm" ]; then
      spec=$(dmsetup table "$(cat "$sys/dm/name")" 2>/dev/null | awk 'NR == 1 { print $3 }')
      [ -n "$spec" ] || spec=dm
    fi
    iotap_say "node $id $parent $name $(cat "$sys/dev") $spec"
    iotap_device_lines "$name"
    local slave
    for slave in "$sys"/slaves/*; do
      [ -e "$slave" ] || continue
      slave=${slave##*/}
      [ -e "/sys/class/block/$slave/dev" ] || continue
      iotap_walk "$slave" "$id"
    done
  }
  local sys
  for sys in /sys/block/md* /sys/block/dm-*; do
    [ -d "$sys" ] || continue
    [ -n "$(ls "$sys/holders" 2>/dev/null)" ] && continue
    iotap_walk "${sys##*/}" 0
  done
}


# Directories of runs that are over: their agent is gone (a run killed with its connection
# before its trap ran, or an upload whose run never came).
iotap_old_dirs() {
  local dir pid
  for dir in /tmp/iotap-ssh.*; do
    [ -d "$dir" ] || continue
    if [ -f "$dir/agent.pid" ]; then
      pid=$(cat "$dir/agent.pid")
      kill -0 "$pid" 2>/dev/null && continue
    else
      # An upload whose run has not started: a run starts within seconds of its upload, so
      # after ten minutes it is one that never will (iotap stopped between the two).
      [ -n "$(find "$dir" -maxdepth 0 -mmin +10 2>/dev/null)" ] || continue
    fi
    rm -rf "$dir"
  done
}

iotap_probe() {
  iotap_fact release "$(uname -r)"
  iotap_fact machine "$(uname -m)"
  iotap_fact staprun "$(command -v staprun || echo -)"
  local privilege=none
  if [ "$(id -u)" = 0 ]; then
    privilege=root
  elif id -nG | tr ' ' '\n' | grep -qx stapdev; then
    privilege=stapdev
  elif sudo -n true 2>/dev/null; then
    privilege=sudo
  fi
  iotap_fact privilege "$privilege"
  iotap_fact user "$(id -un)"
  # Modules iotap runs loaded and left (a run killed before it could unload its own): doctor
  # names them. /proc/modules is readable by anyone; iotap's lines are passed whole.
  if [ -r /proc/modules ]; then
    local line
    while IFS= read -r line; do
      case "$line" in iotap_*) iotap_fact proc_module "$line" ;; esac
    done </proc/modules
  fi
  # The process and the program as the run will see them: with sudo when the run uses it.
  local as=""
  [ "$privilege" = sudo ] && as="sudo -n"
  if [ "$1" != - ]; then
    local exe
    exe=$($as readlink "/proc/$1/exe" 2>/dev/null) || exe=-
    iotap_fact pid_exe "$exe"
    if [ "$exe" != - ]; then
      iotap_fact pid_exe_sha256 "$($as sha256sum "/proc/$1/exe" 2>/dev/null | cut -d' ' -f1)"
    fi
  fi
  if [ "$2" != - ]; then
    if $as test -f "$2" && $as test -x "$2"; then
      iotap_fact program_sha256 "$($as sha256sum "$2" | cut -d' ' -f1)"
    else
      iotap_fact program_sha256 -
    fi
  fi
}

iotap_upload() {
  # NAME becomes a path here: iotap_ and at least one more of a-z, 0-9 and _, nothing else.
  case $2 in
    *[!a-z0-9_]* | iotap_) echo "iotap: not a module name: $2" >&2; exit 125 ;;
    iotap_*) ;;
    *) echo "iotap: not a module name: $2" >&2; exit 125 ;;
  esac
  iotap_old_dirs
  umask 077
  local dir
  dir=$(mktemp -d /tmp/iotap-ssh.XXXXXX) || exit 1
  # All SIZE bytes, or nothing kept: an upload cut short (iotap stopped, the connection lost)
  # leaves no directory behind.
  cat >"$dir/$2.ko" && [ "$(wc -c <"$dir/$2.ko")" -eq "$1" ] || {
    rm -rf "$dir"
    echo "iotap: the module did not arrive whole" >&2
    exit 1
  }
  echo "$dir"
}

# Starts staprun on $module in the background (staprun_pid): with -c the program (its stdout sent
# to stderr when asked), with -x the process, or alone until stopped. $options is split at
# spaces.
iotap_start_staprun() {
  local dir="$1" stdout="$2" mode="$3" target="$4" options="$5"
  shift 5
  case $mode in
    c)
      local wrapper=""
      if [ "$stdout" = stderr ]; then
        printf '#!/bin/sh\nexec "$@" >&2\n' >"$dir/stdout-to-stderr"
        chmod 700 "$dir/stdout-to-stderr"
        wrapper=$dir/stdout-to-stderr
      fi
      staprun $options -c "$wrapper $target" "$module" "$@" &
      ;;
    x) staprun $options -x "$target" "$module" "$@" & ;;
    *) staprun $options "$module" "$@" & ;;
  esac
  staprun_pid=$!
}

# "stop" stops staprun as Ctrl-C would (its end probes report); the -c program, stapio's
# child, gets the SIGINT too, as from a terminal. The end of stdin (iotap gone, the
# connection lost) stops it the same way and, as nobody waits for its end probes any more,
# then harder: SIGTERM after 20 s, SIGKILL after 30 (the module is unloaded below). A SIGINT
# can come before staprun has set its handlers (a background job starts with SIGINT ignored),
# so it is sent again each second until staprun ends.
# iotap_stop_staprun: iotap_interrupt once staprun takes SIGINT (catches or blocks it: stapio
# waits for it in a thread of its own). staprun starts as a background job, with SIGINT ignored:
# one sent before staprun has set itself up would be lost, and the stop with it.
iotap_stop_staprun() {
  while kill -0 "$staprun_pid" 2>/dev/null; do
    awk '/^Sig(Blk|Cgt):/ && index("2367abef", substr($2, length($2))) { taken = 1 }
      END { exit !taken }' "/proc/$staprun_pid/status" 2>/dev/null && break
    sleep 0.1
  done
  iotap_interrupt
}

iotap_listen_for_stop() {
  local stopped="" request waited=0
  while read -r request <&5; do
    if [ "$request" = stop ] && [ -z "$stopped" ]; then
      stopped=yes
      # MODE pg: a connection's start while the probes are still on.
      [ "$mode" = pg ] && iotap_pg_connect "$target"
      iotap_stop_staprun
    fi
  done
  while kill -0 "$staprun_pid" 2>/dev/null; do
    if [ "$waited" -ge 30 ]; then
      kill -KILL "$staprun_pid" 2>/dev/null
    elif [ "$waited" -ge 20 ]; then
      kill -TERM "$staprun_pid" 2>/dev/null
    else
      iotap_interrupt
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

iotap_run() {
  # mode and target: global, for the listener.
  local dir="$1" stdout="$2" count="$5"
  mode=$3
  target=$4
  shift 5
  case $dir in
    /tmp/iotap-ssh.*) ;;
    *) echo "iotap: not a run directory: $dir" >&2; exit 125 ;;
  esac
  # The one module the upload left there; global, as staprun's start and the unload use it.
  module=""
  for module in "$dir"/iotap_*.ko; do :; done
  [ -f "$module" ] || { echo "iotap: $dir has no module" >&2; exit 125; }
  echo $$ >"$dir/agent.pid"
  # Global: the trap runs after this function has returned, when its locals are gone.
  iotap_run_dir=$dir
  trap 'rm -rf "$iotap_run_dir"' EXIT
  # staprun writes to the connection: if it is gone, a write must fail, not kill stapio before
  # it unloads the module.
  trap '' PIPE
  local options="" i=0
  while [ "$i" -lt "$count" ]; do
    options="$options $1"
    shift
    i=$((i + 1))
  done
  # Stdin is the host's control channel; keep it for the listener, away from staprun.
  exec 5<&0 </dev/null
  iotap_stack
  iotap_diskstats before
  [ "$mode" = pg ] && iotap_pg_counters before "$target"
  iotap_say "status running"
  iotap_start_staprun "$dir" "$stdout" "$mode" "$target" "$options" "$@"
  iotap_listen_for_stop >/dev/null 2>&1 &
  listener_pid=$!
  # -x: the run ends when the process does (staprun alone would wait for a stop). By /proc,
  # not kill -0: a stapdev user may not signal the process it traces.
  if [ "$mode" = x ]; then
    (
      while [ -d "/proc/$target" ] && kill -0 "$staprun_pid" 2>/dev/null; do sleep 1; done
      kill -INT "$staprun_pid" 2>/dev/null
    ) >/dev/null 2>&1 &
  fi
  # A hang-up (sshd closing the session) is a stop too; wait again for staprun after it.
  trap 'kill -INT "$staprun_pid" 2>/dev/null' HUP TERM INT
  status=""
  while [ -z "$status" ] || kill -0 "$staprun_pid" 2>/dev/null; do
    wait "$staprun_pid"
    status=$?
  done
  iotap_say "status ran"
  # The listener is still reading (or still waiting for staprun, which is gone: it ends now by
  # itself); the -x watcher ends by itself once staprun has. Neither holds the connection's
  # stdout or stderr, so ssh need not wait for them.
  kill "$listener_pid" 2>/dev/null
  module=${module##*/}
  iotap_unload_left "${module%.ko}"
  iotap_diskstats after
  [ "$mode" = pg ] && iotap_pg_counters after "$target"
  iotap_say "exit $status"
}

case $1 in
  probe) iotap_probe "$2" "$3" ;;
  kallsyms) cat /proc/kallsyms ;;
  upload) iotap_upload "$2" "$3" ;;
  run) shift; iotap_run "$@" ;;
  # --target local runs these two on its own machine (local/local_stack.h).
  stack) iotap_stack; iotap_diskstats before ;;
  diskstats) iotap_diskstats "$2" ;;
  pgstat) iotap_pg_counters "$2" "$3" ;;
  pgconnect) iotap_pg_connect "$2" ;;
  *) echo "iotap agent: unknown request '$1'" >&2; exit 125 ;;
esac
