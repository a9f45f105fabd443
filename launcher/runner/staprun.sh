# What every target's shell does around staprun, written once: the guest's init (guest/init.sh,
# from /lib/iotap/staprun.sh) and the agent on a --target ssh:// host (remote/agent.sh, sent with
# this text in front) both use these. iotap_say is the caller's: its control lines
# (runner/control_protocol.h).

# iotap_diskstats WHEN: the kernel's own disk statistics of every block device (and partition),
# as "diskstat NAME WHEN FIELDS..." with the fields of its sysfs stat file. Said "before" the
# traced run starts and "after" it ends: the host takes the difference as the kernel's view of
# the run, to set beside iotap's. (queue/iostats says nothing for bio-based devices: dm's is 0
# and dm counts; brd's counts nothing. The host drops a device the kernel never counted.)
iotap_diskstats() {
  local sys
  for sys in /sys/class/block/*; do
    [ -r "$sys/stat" ] && iotap_say "diskstat ${sys##*/} $1 $(cat "$sys/stat")"
  done
}

# iotap_interrupt: SIGINT to staprun ($staprun_pid) and to its children (the -c program), as a
# terminal's Ctrl-C would: staprun unloads the module after its end probes, so the script's
# final output still comes back; left running, the program (block_hasher reading a delayed
# device) would keep staprun waiting for it.
iotap_interrupt() {
  kill -INT "$staprun_pid" 2>/dev/null
  local stat pid ppid
  for stat in /proc/[0-9]*/stat; do
    read -r pid _ _ ppid _ <"$stat" 2>/dev/null && [ "$ppid" = "$staprun_pid" ] &&
      kill -INT "$pid" 2>/dev/null
  done
}

# iotap_blocked_tasks: each process in uninterruptible sleep (state D), as "blocked PID COMM:
# FRAME < FRAME ..." with the innermost frames of where the kernel holds it (/proc/PID/stack):
# what a run that does not end when stopped waits on (a disk that never answers, a suspended dm
# device, md waiting on its superblock).
iotap_blocked_tasks() {
  local dir state frames
  for dir in /proc/[0-9]*; do
    read -r _ _ state _ <"$dir/stat" 2>/dev/null || continue
    [ "$state" = D ] || continue
    frames=$(awk '{ sub(/^\[<[0-9a-f]*>\] /, ""); sub(/\+.*/, "");
                    printf "%s%s", (NR > 1 ? " < " : ""), $0; if (NR == 4) exit }' "$dir/stack" 2>/dev/null)
    echo "blocked ${dir#/proc/} $(cat "$dir/comm" 2>/dev/null): ${frames:-(no stack)}"
  done
}

# iotap_unload_left NAME: stapio unloads the module when it ends; one killed outright leaves it
# loaded (in the guest, the next run's would not load beside it). NAME is the run's own module.
iotap_unload_left() {
  grep -q "^$1 " /proc/modules && staprun -d "$1" >/dev/null 2>&1
}
