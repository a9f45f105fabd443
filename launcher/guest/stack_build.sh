# The guest's side of the --stack plan (stack_spec/stack_plan.h): the functions the plan's
# script (/iotap/stack.sh) calls to build each device and report it as control lines
# (runner/control_protocol.h). Sourced by init.sh from /lib/iotap/stack_build.sh; iotap_say and
# iotap_fail are init's.

# iotap_sectors DEV: a device's size in 512-byte sectors.
iotap_sectors() { blockdev --getsz "$1"; }

# iotap_kname PATH: the kernel's name for a device node (dm-3 for /dev/mapper/iotap3).
iotap_kname() {
  local majmin
  majmin=$(stat -L -c '%t:%T' "$1") || return 1
  basename "$(readlink "/sys/dev/block/$((0x${majmin%:*})):$((0x${majmin#*:}))")"
}

# iotap_device_lines NAME: the md and dm lines of a device (device_lines.sh, shared with the ssh
# agent).
. /lib/iotap/device_lines.sh

# iotap_node ID PARENT SPEC PATH: reports a device the stack now has, as sysfs sees it:
#   node ID PARENT NAME MAJ:MIN SPEC
# then its md or dm lines (iotap_device_lines).
iotap_node() {
  local name
  name=$(iotap_kname "$4") || iotap_fail "no kernel name for $4"
  iotap_say "node $1 $2 $name $(cat "/sys/block/$name/dev") $3"
  iotap_device_lines "$name"
}

# iotap_disk ID PARENT SPEC PATH
iotap_disk() {
  [ -b "$4" ] || iotap_fail "disk $4 for $3 did not appear"
  iotap_node "$1" "$2" "$3" "$4"
}

# iotap_null ID PARENT SPEC PATH SIZE_MIB LATENCY_NS CACHE_MIB: a null_blk disk made through
# configfs, request-based (queue_mode 2), each I/O completed by a timer LATENCY_NS later (irqmode
# 2), its data kept in memory (mdadm reads back the superblock it writes). CACHE_MIB > 0 gives it
# a volatile write cache: the kernel then sends it flushes and FUA writes, each timed as any I/O.
# The kernel names the disk after its configfs entry: /dev/nullb0 for .../nullb/nullb0.
iotap_null() {
  local dir=/sys/kernel/config/nullb/${4#/dev/}
  [ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config ||
    iotap_fail "could not mount configfs for $3"
  mkdir "$dir" || iotap_fail "null_blk made no configfs entry for $3"
  {
    echo 2 >"$dir/queue_mode" && echo 2 >"$dir/irqmode" && echo "$6" >"$dir/completion_nsec" &&
      echo "$5" >"$dir/size" && echo 1 >"$dir/memory_backed" &&
      { [ "$7" = 0 ] || echo "$7" >"$dir/cache_size"; } && echo 1 >"$dir/power"
  } || iotap_fail "null_blk refused the settings of $3"
  iotap_disk "$1" "$2" "$3" "$4"
}

# iotap_md ID PARENT SPEC PATH LEVEL CHUNK_KIB MEMBER...
iotap_md() {
  local id=$1 parent=$2 spec=$3 path=$4 level=$5 chunk=$6
  shift 6
  local options="--run --level=$level --raid-devices=$#"
  [ "$chunk" != 0 ] && options="$options --chunk=$chunk"
  # raid10's near copies, spelled out: the remap check reads the layout back.
  [ "$level" = 10 ] && options="$options --layout=n2"
  # A mirror's or a parity array's initial resync would read and write in the background of
  # every trace.
  [ "$level" != 0 ] && options="$options --assume-clean"
  mdadm --create "$path" $options "$@" </dev/null || iotap_fail "mdadm could not create $path for $spec"
  iotap_node "$id" "$parent" "$spec" "$path"
}

# iotap_linear_table MEMBER...: a dm-linear table that concatenates the members.
iotap_linear_table() {
  local offset=0 size
  for member in "$@"; do
    size=$(iotap_sectors "$member")
    echo "$offset $size linear $member 0"
    offset=$((offset + size))
  done
}

# iotap_striped_table CHUNK_SECTORS MEMBER...: a dm-striped table over the members, as LVM
# stripes: as many whole chunks from each as the smallest member holds.
iotap_striped_table() {
  local chunk=$1 least="" size devices=""
  shift
  for member in "$@"; do
    size=$(iotap_sectors "$member")
    [ -z "$least" ] || [ "$size" -lt "$least" ] && least=$size
    devices="$devices $member 0"
  done
  echo "0 $((least / chunk * chunk * $#)) striped $# $chunk$devices"
}

# iotap_dm ID PARENT SPEC NAME TABLE
iotap_dm() {
  echo "$5" | dmsetup create --noudevsync "$4" || iotap_fail "dmsetup could not create $4 for $3 (table: $5)"
  dmsetup mknodes "$4"
  iotap_node "$1" "$2" "$3" "/dev/mapper/$4"
}

# iotap_dm_switch NAME TABLE: replaces a live dm device's table (an error target that had to
# start as linear so that mdadm could build the array above it).
iotap_dm_switch() {
  dmsetup suspend "$1" && echo "$2" | dmsetup load "$1" && dmsetup resume "$1" ||
    iotap_fail "dmsetup could not switch $1 to: $2"
  local name
  name=$(iotap_kname "/dev/mapper/$1")
  iotap_say "dmclear $name"
  dmsetup table "$1" | while read -r line; do iotap_say "dm $name $line"; done
}
