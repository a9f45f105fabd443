# iotap's agent on a host reached with --target ssh://HOST (launcher/target/ssh/ssh_runner.cpp).
#
# It is not installed there: iotap sends this text as the argument of `sh -c` on each ssh
# connection, with the subcommand and its arguments after it, so the host needs nothing of
# iotap's, only a POSIX sh, coreutils or busybox, and SystemTap's runtime (staprun). Every
# argument is a word iotap quoted; nothing here evaluates what a user typed.
#
#   probe PID PROGRAM   what iotap must know before it compiles: "fact NAME VALUE" lines (the
#                       kernel release, the machine, staprun, the privilege, the -x process's
#                       executable, the -c program's digest). PID and PROGRAM are "-" when not
#                       asked about.
#   kallsyms            /proc/kallsyms (root only: kernel.kptr_restrict hides it from others)
#   upload              a private directory /tmp/iotap-ssh.XXXXXX holding stdin as iotap.ko;
#                       prints its path. Directories that earlier runs left are removed first.
#   run DIR STDOUT MODE TARGET NSTAP STAPRUN_OPTIONS... MODULE_OPTIONS...
#                       staprun DIR/iotap.ko, MODE "c" (TARGET is the command, one string quoted
#                       for staprun's wordexp), "x" (TARGET is a pid) or "-"; STDOUT "stderr"
#                       puts the -c program's stdout on stderr. The module's output is this
#                       connection's stdout; staprun's and the program's stderr its stderr, with
#                       "iotap-ctl LINE" control lines there too, never while staprun runs: the
#                       block stack as the guest reports it ("node", "md", "dm":
#                       target/vm/control_protocol.h), the disk statistics before and after,
#                       "status ...", "exit N".
#                       A line "stop" on stdin, or its end (the connection gone), stops staprun
#                       as Ctrl-C does. DIR goes with the run, and the module with staprun.

iotap_fact() { echo "fact $1 $2"; }

# iotap_say LINE: a control line, on stderr during a run (stdout is the module's stream).
iotap_say() { echo "iotap-ctl $*" >&2; }

# iotap_stack: the block stacks this host has, as control lines (iotap_device_lines, from
# target/vm/guest/device_lines.sh, is sent ahead of this text).
iotap_stack() {
  # Each md or dm device without holders tops a stack; its slaves are its members, walked
  # depth first. Numbers are the order of discovery; 0 is the parent of a top.
  local count=0
  iotap_walk() {
    local name=$1 parent=$2 sys=/sys/block/$1 id spec
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
      # A partition's slave link names the partition; its disk is where /sys/block has it.
      slave=${slave##*/}
      [ -d "/sys/block/$slave" ] || continue
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

# iotap_diskstats WHEN: every block device's /sys/block/NAME/stat, as the guest reports them.
iotap_diskstats() {
  local sys
  for sys in /sys/block/*; do
    [ -r "$sys/stat" ] && iotap_say "diskstat ${sys##*/} $1 $(cat "$sys/stat")"
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
      # An upload not yet run: left alone for an hour.
      [ -n "$(find "$dir" -maxdepth 0 -mmin +60 2>/dev/null)" ] || continue
    fi
    rm -rf "$dir"
  done
}

iotap_probe() {
  iotap_fact release "$(uname -r)"
  iotap_fact machine "$(uname -m)"
  iotap_fact staprun "$(command -v staprun || echo -)"
  if [ "$(id -u)" = 0 ]; then
    iotap_fact privilege root
  elif id -nG | tr ' ' '\n' | grep -qx stapdev; then
    iotap_fact privilege stapdev
  elif sudo -n true 2>/dev/null; then
    iotap_fact privilege sudo
  else
    iotap_fact privilege none
  fi
  iotap_fact user "$(id -un)"
  if grep -q '^iotap ' /proc/modules 2>/dev/null; then iotap_fact busy yes; else iotap_fact busy no; fi
  if [ "$1" != - ]; then
    iotap_fact pid_exe "$(readlink "/proc/$1/exe" 2>/dev/null || echo -)"
  fi
  if [ "$2" != - ]; then
    if [ -f "$2" ] && [ -x "$2" ]; then
      iotap_fact program_sha256 "$(sha256sum <"$2" | cut -d' ' -f1)"
    else
      iotap_fact program_sha256 -
    fi
  fi
}

iotap_upload() {
  iotap_old_dirs
  umask 077
  local dir
  dir=$(mktemp -d /tmp/iotap-ssh.XXXXXX) || exit 1
  cat >"$dir/iotap.ko" || { rm -rf "$dir"; exit 1; }
  echo "$dir"
}

iotap_run() {
  local dir=$1 stdout=$2 mode=$3 target=$4 count=$5
  shift 5
  case $dir in
    /tmp/iotap-ssh.*) [ -f "$dir/iotap.ko" ] || { echo "iotap: $dir/iotap.ko is missing" >&2; exit 125; } ;;
    *) echo "iotap: not a run directory: $dir" >&2; exit 125 ;;
  esac
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
  iotap_say "status running"
  case $mode in
    c)
      local wrapper=""
      if [ "$stdout" = stderr ]; then
        printf '#!/bin/sh\nexec "$@" >&2\n' >"$dir/stdout-to-stderr"
        chmod 700 "$dir/stdout-to-stderr"
        wrapper=$dir/stdout-to-stderr
      fi
      staprun $options -c "$wrapper $target" "$dir/iotap.ko" "$@" &
      ;;
    x) staprun $options -x "$target" "$dir/iotap.ko" "$@" & ;;
    *) staprun $options "$dir/iotap.ko" "$@" & ;;
  esac
  staprun_pid=$!
  # "stop", or the end of stdin (iotap gone, the connection lost), stops staprun as Ctrl-C
  # would; the -c program, stapio's child, gets the SIGINT too, as from a terminal.
  (
    while read -r request <&5; do
      [ "$request" = stop ] && break
    done
    kill -INT "$staprun_pid" 2>/dev/null
    for stat in /proc/[0-9]*/stat; do
      read -r pid _ _ ppid _ <"$stat" 2>/dev/null && [ "$ppid" = "$staprun_pid" ] &&
        kill -INT "$pid" 2>/dev/null
    done
  ) &
  listener_pid=$!
  # -x: the run ends when the process does (staprun alone would wait for a stop).
  watcher_pid=""
  if [ "$mode" = x ]; then
    (
      while kill -0 "$target" 2>/dev/null && kill -0 "$staprun_pid" 2>/dev/null; do sleep 1; done
      kill -INT "$staprun_pid" 2>/dev/null
    ) &
    watcher_pid=$!
  fi
  # A hang-up (sshd closing the session) is a stop too; wait again for staprun after it.
  trap 'kill -INT "$staprun_pid" 2>/dev/null' HUP TERM INT
  status=""
  while [ -z "$status" ] || kill -0 "$staprun_pid" 2>/dev/null; do
    wait "$staprun_pid"
    status=$?
  done
  iotap_say "status ran"
  kill "$listener_pid" $watcher_pid 2>/dev/null
  # stapio unloads the module when it ends; one killed outright leaves it loaded.
  grep -q '^iotap ' /proc/modules && staprun -d iotap >/dev/null 2>&1
  iotap_diskstats after
  iotap_say "exit $status"
}

case $1 in
  probe) iotap_probe "$2" "$3" ;;
  kallsyms) cat /proc/kallsyms ;;
  upload) iotap_upload ;;
  run) shift; iotap_run "$@" ;;
  *) echo "iotap agent: unknown request '$1'" >&2; exit 125 ;;
esac
