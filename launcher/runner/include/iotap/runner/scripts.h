#pragma once
// The shell fragments every target runs, kept in this library's folder (runner/*.sh) and
// installed to share/iotap/runner: the guest's init sources them from /lib/iotap, and the ssh
// agent is sent with them in front.
#include <string>

namespace iotap::runner {

// runner/device_lines.sh: iotap_device_lines NAME, the md and dm lines of a block device.
std::string device_lines_script();

// runner/staprun.sh: iotap_diskstats, iotap_interrupt and iotap_unload_left, around staprun.
std::string staprun_script();

}  // namespace iotap::runner
