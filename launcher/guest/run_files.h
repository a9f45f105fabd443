#pragma once
// The run's files for the guest (guest/init.sh reads them from /iotap): the module, the kernel
// modules and the stack to load, the command, run.conf, the programs and files the command needs.
#include <string>

#include "initramfs.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/util/temp_dir.h"
#include "kernel.h"

namespace iotap::guest {

// A cpio of them in `dir`, leaving out the files `base` holds; its bytes.
std::string build_run_files(const VmRun& run, const GuestKernel& kernel, const BaseImage& base,
                            const TempDir& dir);

}  // namespace iotap::guest
