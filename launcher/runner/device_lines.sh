# iotap_device_lines NAME: what sysfs says of the block device NAME when it is md or dm, said
# with iotap_say as the control lines (runner/control_protocol.h)
#   md NAME LEVEL CHUNK_BYTES LAYOUT MEMBER:DATA_OFFSET_SECTORS...   (members in slot order;
#                                                            an absent slot is left out)
#   dm NAME START LENGTH TARGET ARGS...                         (one per table line)
# Shared by the guest's init (guest/init.sh, from /lib/iotap/device_lines.sh) and the agent on
# a --target ssh:// host (remote/agent.sh, which is sent with this text in front).
iotap_device_lines() {
  local name="$1" sys="/sys/block/$1"
  if [ -d "$sys/md" ]; then
    local members="" slot=0 slots link member
    slots=$(cat "$sys/md/raid_disks")
    while [ "$slot" -lt "$slots" ]; do
      if link=$(readlink "$sys/md/rd$slot" 2>/dev/null); then
        member=${link##*dev-}
        members="$members $member:$(cat "$sys/md/dev-$member/offset")"
      fi
      slot=$((slot + 1))
    done
    iotap_say "md $name $(cat "$sys/md/level") $(cat "$sys/md/chunk_size") $(cat "$sys/md/layout" 2>/dev/null || echo 0)$members"
  fi
  if [ -d "$sys/dm" ]; then
    dmsetup table "$(cat "$sys/dm/name")" 2>/dev/null | while read -r line; do
      iotap_say "dm $name $line"
    done
  fi
}
