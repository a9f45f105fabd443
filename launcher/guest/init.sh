#!/bin/busybox sh
# iotap's guest init: PID 1 of the qemu guest that `--target vm` boots.
#
# The host (launcher/guest/vm_runner.cpp) talks to it over:
#   ttyS0          kernel console, and this script's own progress; the host keeps it in a log
#   ttyS1          control lines both ways: "status ...", "node ...", "diskstat ...", "exit N"
#                  from here; "run BYTES NONCE" and "stop" from the host
#   org.iotap.in   (virtio-serial) the run's files from the host: a newc cpio of BYTES bytes
#   org.iotap.out  (virtio-serial) the run's standard output: the script's and the program's
#   org.iotap.err  (virtio-serial) the run's standard error
# The kernel's command line says how many runs: iotap.mode=once (a guest per run: it powers off
# after it) or iotap.mode=serve (a guest kept for many, `iotap guest start`: after each run it
# tears the stack down, unloads what the run loaded, and waits for the next "run"; it powers off
# when a run could not be torn down, or after iotap.idle seconds without one).
# Everything run-specific comes in /iotap/, unpacked from the run's cpio: run.conf, modules,
# stack.sh, command and the compiled module. Nothing the user typed is evaluated by this shell:
# the command line reaches staprun as one argument, read from a file.

/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
# The kernel found no /dev/console in the initramfs; give this script and its children one.
exec </dev/null >/dev/console 2>&1
/bin/busybox --install -s
mount -t debugfs debugfs /sys/kernel/debug
# No tmpfs on /tmp: the root is already in memory, and programs the host keeps under /tmp sit
# at the same path in here.
mkdir -p /tmp /run /var/run
# staprun's stderr is a serial tty; keep its messages free of colour codes.
export TERM=dumb SYSTEMTAP_COLOR=never
stty -F /dev/ttyS1 raw -echo
exec 3>/dev/ttyS1

iotap_say() { echo "$*" >&3; }
iotap_quit() {
  sync
  poweroff -f
}
iotap_fail() {
  iotap_say "error $*"
  iotap_say "exit 125"
  iotap_quit
}

# iotap_disk, iotap_md, iotap_dm, ...: what the stack plan's script (/iotap/stack.sh) calls
# (stack_build.sh, the guest's side of stack_spec/stack_plan.h).
. /lib/iotap/stack_build.sh

# iotap_port NAME: the device node of the virtio-serial port the host named NAME. The ports
# appear after virtio_console's insmod returns, and a port's name a moment after the port: on a
# loaded host, vport0p1 was there without its name ("cat: can't open .../vport0p1/name"), and
# the run failed. So it waits, up to 10 s, for the name (and the device node) to appear.
iotap_port() {
  local tries=0
  while [ "$tries" -lt 200 ]; do
    for port in /sys/class/virtio-ports/*; do
      # Its node too: a redirection to a node not made yet would make a plain file instead.
      [ "$(cat "$port/name" 2>/dev/null)" = "$1" ] && [ -c "/dev/${port##*/}" ] &&
        echo "/dev/${port##*/}" && return 0
    done
    sleep 0.05
    tries=$((tries + 1))
  done
  return 1
}

# iotap_loaded MODULE_PATH: whether the module is in the kernel already (a channel module, or a
# dependency the last run's teardown kept because a channel module uses it).
iotap_loaded() {
  local name=${1##*/}
  name=${name%%.ko*}
  grep -q "^$(echo "$name" | tr - _) " /proc/modules
}

# iotap_receive BYTES: the run's cpio from the in port (fd 4), unpacked at /. The port stays
# open from boot on: closing it throws away what it holds, and the host's "disconnected" can
# overtake its last bytes. A read ends early when the host's end is not open yet; this reads
# until it has all BYTES, and gives up after 60 s without a byte.
iotap_receive() {
  local have=0 now idle=0
  : >/iotap.cpio
  while [ "$have" -lt "$1" ]; do
    head -c "$(($1 - have))" <&4 >>/iotap.cpio
    now=$(stat -c %s /iotap.cpio)  # busybox's wc -c reads the whole file
    if [ "$now" = "$have" ]; then
      idle=$((idle + 1))
      [ "$idle" -lt 1200 ] || iotap_fail "the run's files did not arrive ($have of $1 bytes)"
      sleep 0.05
    fi
    have=$now
  done
  (cd / && cpio -i -d -u -m </iotap.cpio 2>/dev/null) || iotap_fail "could not unpack the run's files"
  cpio -t </iotap.cpio >/iotap.files 2>/dev/null
  rm /iotap.cpio
}

iotap_mode=once
iotap_idle=1800
for word in $(cat /proc/cmdline); do
  case $word in
    iotap.mode=*) iotap_mode=${word#iotap.mode=} ;;
    iotap.idle=*) iotap_idle=${word#iotap.idle=} ;;
  esac
done

iotap_say "status booted"
while read -r module options; do
  insmod "$module" $options || iotap_fail "could not load $module"
done </lib/iotap/channel-modules
in=$(iotap_port org.iotap.in) || iotap_fail "no virtio-serial port for the run's files"
out=$(iotap_port org.iotap.out) || iotap_fail "no virtio-serial port for the output"
err=$(iotap_port org.iotap.err) || iotap_fail "no virtio-serial port for errors"
exec 4<"$in"
# The output ports, opened once, here, for every run: a virtio-serial port opens only once at a
# time (EBUSY after), and a program's background child that outlives it (`sh -c 'sleep 5 &
# echo x'`) keeps its copy of the port open until the teardown kills it. Reopened for the end
# marker, the port refused, the marker never came, and the host waited for it forever. The run's
# processes write to copies of fds 5 and 6 (as their 1 and 2), so this shell can always write
# the marker after them.
exec 5>"$out" 6>"$err"
# What the guest holds before any run, named as cpio -t names a run's files (no leading /): its
# files, and its symlinks with their targets (busybox's applets among them). A served guest's
# teardown removes what a run added and puts back a link a run replaced (a program's
# /usr/bin/sh -> dash over busybox's sh).
if [ "$iotap_mode" = serve ]; then
  (cd / && find . -xdev -type f | sed 's|^\./||') >/iotap-base.files
  (cd / && find . -xdev -type l | sed 's|^\./||') | while read -r link; do
    echo "$link $(readlink "/$link")"
  done >/iotap-base.links
fi

# iotap_diskstats WHEN, iotap_interrupt and iotap_unload_left: around staprun, as every target
# does it (runner/staprun.sh, shared with the ssh agent).
. /lib/iotap/staprun.sh

# iotap_setup: what a run needs before staprun starts: its settings (run.conf), its kernel
# modules, its stack, the tools disk, the network, the kernel's symbol table.
iotap_setup() {
  . /iotap/run.conf

  iotap_say "status loading modules"
  : >/iotap/loaded
  while read -r module options; do
    iotap_loaded "$module" && continue
    insmod "$module" $options || iotap_fail "could not load $module"
    echo "$module" >>/iotap/loaded
  done </iotap/modules

  if [ -s /iotap/stack.sh ]; then
    iotap_say "status building stack"
    . /iotap/stack.sh
  fi

  # The tools disk (VmRun::tools_image): programs too big for the initramfs (bpftrace and its
  # LLVM), on a read-only ext4 image the host attached as the virtio disk with serial
  # iotap-tools.
  if [ "$IOTAP_TOOLS" = 1 ]; then
    tools=""
    for sys in /sys/block/vd*; do
      [ "$(cat "$sys/serial" 2>/dev/null)" = iotap-tools ] && tools=/dev/${sys##*/}
    done
    [ -n "$tools" ] || iotap_fail "no virtio disk with serial iotap-tools (the tools image)"
    mkdir -p /tools
    mount -t ext4 -o ro "$tools" /tools || iotap_fail "could not mount the tools image $tools"
    mount -t tracefs nodev /sys/kernel/tracing
  fi

  # PostgreSQL on the stack (--postgres; /iotap/postgres.sh): a cluster with a data set and its
  # counters read before the trace; the command's first process starts the server (so that -c's
  # probes see it) and runs the command as its user. Without a command the server starts now.
  run_as=""
  if [ "$IOTAP_POSTGRES" = 1 ]; then
    . /iotap/postgres.conf
    . /iotap/postgres.sh
    iotap_postgres_start
    run_as=/iotap/pg-traced
    [ -s /iotap/command ] || iotap_pg_server_start || iotap_pg_fail "the server did not start"
  fi

  # The network (VmRun::ssh_port): qemu's user network, whose fixed addresses are the guest's
  # 10.0.2.15 and its gateway 10.0.2.2; the host forwards its port to this guest's port 22.
  if [ "$IOTAP_NET" = 1 ]; then
    iotap_say "status starting the network"
    { ip link set lo up && ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 &&
      ip route add default via 10.0.2.2; } || iotap_fail "could not bring the network up"
  fi

  # Kernel addresses are named on the host from this boot's own symbol table (KASLR moved it;
  # the modules just loaded are in it). It goes ahead of the output on the same port, framed as
  # "iotap-kallsyms BYTES", so the host holds it before the first line that needs it.
  if [ "$IOTAP_KALLSYMS" = 1 ]; then
    iotap_say "status reading the kernel's symbol table"
    { grep '^[0-9a-f]* [tTwW] ' /proc/kallsyms; cat /proc/modules; } >/iotap/kallsyms
    echo "iotap-kallsyms $(stat -c %s /iotap/kallsyms)" >&5
    cat /iotap/kallsyms >&5
    rm /iotap/kallsyms
  fi

}

# iotap_run: one run, from its files in /iotap to staprun's exit; sets status.
iotap_run() {
  iotap_setup

  # A run without a module only reads the kernel's symbol table (iotap's compile-time
  # System.map). The host says "stop" once it holds the whole table: ending earlier could cut
  # it short.
  if [ ! -s /iotap/iotap.ko ] && [ "$IOTAP_PLAIN" != 1 ]; then
    read -r _ </dev/ttyS1
    status=0
    return
  fi

  iotap_say "status running"
  # staprun runs at nice IOTAP_STAPRUN_NICE (0 unless the host's environment says otherwise),
  # and the command goes back to nice 0 (IOTAP_COMMAND_NICE is the opposite increment). stapio
  # 4.8's relay readers read one message per system call, and when the run ends it stops them
  # without reading what is left (fixed after 4.8, SystemTap PR31597): a program that keeps the
  # guest's CPUs busy left a backlog, and the end of the run was lost (1 run in 6 of
  # block_hasher -t 8 on raid0(ram*8) kept 43 to 57 of its 64 reads, cut mid-line).
  # stapio_drain.so, preloaded into stapio, reads what is left when the readers stop
  # (launcher/runner/stapio_drain/stapio_drain.c). Readers above the program (nice -10, once the
  # default) slowed 4 KiB reads 2.9 times for nothing.
  drain=/lib/iotap/stapio_drain.so
  iotap_diskstats before
  if [ "$IOTAP_PLAIN" = 1 ]; then
    # A plain command (VmRun::plain_command, the benchmarks'): no staprun; the module, if any,
    # is at /iotap/iotap.ko for the command's own use.
    sh -c "$(cat /iotap/command)" >&5 2>&6 4<&- 5>&- 6>&- 7>&- 8>&- &
  elif [ -s /iotap/command ]; then
    # The program's stdout joins its stderr unless it belongs in the script's stream (iotap
    # run): block-buffered, it would be written mid-line into the port the module's events go
    # to.
    wrapper=""
    [ "$IOTAP_PROGRAM_STDOUT" = stderr ] && wrapper=/iotap/stdout-to-stderr
    LD_PRELOAD=$drain nice -n "$IOTAP_STAPRUN_NICE" staprun $IOTAP_STAPRUN_OPTIONS -c "nice -n $IOTAP_COMMAND_NICE $wrapper $run_as $(cat /iotap/command)" /iotap/iotap.ko $IOTAP_MODULE_OPTIONS >&5 2>&6 4<&- 5>&- 6>&- 7>&- 8>&- &
  else
    LD_PRELOAD=$drain nice -n "$IOTAP_STAPRUN_NICE" staprun $IOTAP_STAPRUN_OPTIONS /iotap/iotap.ko $IOTAP_MODULE_OPTIONS >&5 2>&6 4<&- 5>&- 6>&- 7>&- 8>&- &
  fi
  staprun_pid=$!
  # The host's Ctrl-C arrives as "stop": staprun and the -c program get a SIGINT each. A run
  # still there 10 s later is held by the kernel: the blocked tasks and where they wait go to
  # the run's stderr, for the host's message (a hang then says where it hangs).
  (
    while read -r request; do
      [ "$request" = stop ] || continue
      iotap_interrupt
      (
        sleep 10
        kill -0 "$staprun_pid" 2>/dev/null && iotap_blocked_tasks | sed 's/^/iotap guest: /' >&6
      ) &
    done </dev/ttyS1
  ) &
  listener_pid=$!
  wait "$staprun_pid"
  status=$?
  # The traced run's end, for its length on the host (the probes' share of it): the teardown
  # that follows is not part of it.
  iotap_say "status ran"
  kill "$listener_pid" 2>/dev/null
  wait "$listener_pid" 2>/dev/null
  iotap_diskstats after
  [ "$IOTAP_POSTGRES" = 1 ] && iotap_pg_stats after
}

# iotap_stack_left: is any md or dm device left?
iotap_stack_left() { ls /sys/block | grep -q -e '^md' -e '^dm-'; }

# iotap_teardown: puts a served guest back as it booted, for the next run: no process of the
# run's, no stack, no module it loaded, none of its files. Says what it could not undo.
iotap_teardown() {
  kill -9 -1 2>/dev/null  # every process but this one: the run's leftovers
  iotap_unload_left iotap
  umount /tools /sys/kernel/tracing 2>/dev/null
  local round=0
  # A stack nests md and dm in any order: stop and remove until nothing is left (at most four
  # rounds; each round's tools cost about 50 ms under TCG, so none is spent on nothing).
  while [ "$round" -lt 4 ] && iotap_stack_left; do
    for md in /sys/block/md*; do
      [ -e "$md" ] && mdadm --stop "/dev/${md##*/}" >/dev/null 2>&1
    done
    ls /sys/block | grep -q '^dm-' && dmsetup remove_all >/dev/null 2>&1
    round=$((round + 1))
  done
  for entry in /sys/kernel/config/nullb/*; do
    [ -d "$entry" ] && { echo 0 >"$entry/power"; rmdir "$entry"; }
  done 2>/dev/null
  umount /sys/kernel/config 2>/dev/null
  local module left=""
  for module in $(sed '1!G;h;$!d' /iotap/loaded); do
    rmmod "$module" 2>/dev/null || left="$left ${module##*/}"
  done
  grep -q '^iotap ' /proc/modules && left="$left iotap"
  # What holds them, when something does: a task blocked in the kernel on the run's devices.
  [ -z "$left" ] || echo "could not unload$left$(iotap_blocked_tasks | awk '{ printf "; %s", $0 }')"
  # The run's files and links that the guest did not have, then the guest's own links back as
  # they were.
  grep -vxFf /iotap-base.files /iotap.files | while read -r file; do
    [ -f "/$file" ] && [ ! -L "/$file" ] && rm -f "/$file"
  done
  awk 'NR == FNR { was[$1]; next } !($0 in was)' /iotap-base.links /iotap.files |
    while read -r file; do
      [ -L "/$file" ] && rm -f "/$file"
    done
  awk 'NR == FNR { was[$1] = $2; next } $0 in was { print $0, was[$0] }' /iotap-base.links \
    /iotap.files | while read -r link target; do
    [ "$(readlink "/$link")" = "$target" ] && continue
    rm -rf "/$link" && ln -s "$target" "/$link" || echo "could not restore /$link"
  done
  rm -rf /iotap.files /iotap/*
}

while true; do
  if [ "$iotap_mode" = serve ]; then
    iotap_say "status waiting for a run"
    request=""
    read -r -t "$iotap_idle" request </dev/ttyS1 || iotap_quit
  else
    read -r request </dev/ttyS1
  fi
  set -- $request
  [ "$1" = run ] || continue
  iotap_nonce=$3
  iotap_say "status receiving the run's files"
  iotap_receive "$2"
  iotap_run
  # The ends of the run's streams: the host strips these and then knows it has all of both.
  printf 'iotap-end-%s\n' "$iotap_nonce" >&5
  printf 'iotap-end-%s\n' "$iotap_nonce" >&6
  if [ "$iotap_mode" = serve ]; then
    unclean=$(iotap_teardown)
    [ -z "$unclean" ] || iotap_say "status the guest stops: $unclean"
  fi
  iotap_say "exit $status"
  [ "$iotap_mode" = serve ] && [ -z "$unclean" ] || iotap_quit
done
