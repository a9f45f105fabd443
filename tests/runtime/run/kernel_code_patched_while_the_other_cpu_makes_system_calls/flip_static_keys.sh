# For SECONDS seconds, a loop makes system calls on one CPU while the other turns raw_syscalls'
# sys_enter event on and off, as fast as it can: the static key and static call that every stap
# module's sys_enter tracepoint patches at its load and its unload.
set -eu
seconds=$1
tracing=/sys/kernel/tracing
mounted=
if ! grep -q " $tracing tracefs " /proc/mounts; then
  mount -t tracefs nodev "$tracing"
  mounted=yes
fi
timeout "$seconds" dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
busy=$!
trap 'kill $busy 2>/dev/null || true; wait || true; [ -z "$mounted" ] || umount "$tracing"' EXIT
flips=0
while kill -0 "$busy" 2>/dev/null; do
  echo 1 > "$tracing/events/raw_syscalls/sys_enter/enable"
  echo 0 > "$tracing/events/raw_syscalls/sys_enter/enable"
  flips=$((flips + 1))
done
echo "flipped the system call tracepoint $flips times"
