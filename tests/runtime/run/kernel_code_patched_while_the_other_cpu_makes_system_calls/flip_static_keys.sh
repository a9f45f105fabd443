# FLIPS times, a loop makes system calls on one CPU while the other turns raw_syscalls' sys_enter
# event on and off, as fast as it can: the static key and static call that every stap module's
# sys_enter tracepoint patches at its load and its unload. Bounded by a count, not by time: each
# flip takes 0.3 s or more (the other vCPU takes the patch's synchronising IPIs in its turn), and
# more on a loaded host, where a time bound flipped too few times to mean anything.
set -eu
flips_wanted=$1
tracing=/sys/kernel/tracing
mounted=
if ! grep -q " $tracing tracefs " /proc/mounts; then
  mount -t tracefs nodev "$tracing"
  mounted=yes
fi
dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
busy=$!
trap 'kill $busy 2>/dev/null || true; wait || true; [ -z "$mounted" ] || umount "$tracing"' EXIT
flips=0
while [ "$flips" -lt "$flips_wanted" ]; do
  echo 1 > "$tracing/events/raw_syscalls/sys_enter/enable"
  echo 0 > "$tracing/events/raw_syscalls/sys_enter/enable"
  flips=$((flips + 1))
done
echo "flipped the system call tracepoint $flips times"
if kill -0 "$busy" 2>/dev/null; then
  echo "the other CPU made system calls throughout"
fi
