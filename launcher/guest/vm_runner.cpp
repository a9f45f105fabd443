#include "iotap/guest/vm_runner.h"

#include <memory>
#include <string>
#include <utility>

#include "accelerator.h"
#include "guest_link.h"
#include "guest_session.h"
#include "initramfs.h"
#include "iotap/guest/guest_kernels.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/temp_dir.h"
#include "kernel.h"
#include "qemu_command.h"
#include "run_files.h"
#include "vm_checks.h"

namespace iotap::guest {

VmResult run_in_vm(const VmRun& run, const VmEvents& events) {
  const GuestKernel kernel = GuestKernel::find(resolve_guest_kernel(run.kernel_release));
  const std::string qemu = find_qemu();
  check_socket_paths();

  events.status("preparing the guest image");
  TempDir dir(kTempPrefix);
  const BaseImage base = base_initramfs(kernel, data_paths().cache);
  const std::string& initrd = base.path;
  std::unique_ptr<GuestLink> link = shared_link(run, initrd, events);
  const bool shared = link != nullptr;
  if (!shared) link = private_link(dir);
  GuestSession session(run, events, *link);
  if (!shared) {
    QemuGuest guest;
    guest.qemu = qemu;
    guest.kernel = kernel;
    guest.initrd = initrd;
    guest.dir = dir.path();
    guest.memory_mib = run.memory_mib;
    guest.cpus = run.cpus;
    if (run.stack) guest.virtio_disks = run.stack->virtio_disks;
    guest.tools_image = run.tools_image;
    guest.ssh_port = run.ssh_port;
    session.start(qemu_command(guest));
  }
  // From here a failure (a compile error, a stop signal) takes the booting guest with it.
  VmRun with_module = run;
  if (run.build_module) with_module.module_path = run.build_module();
  std::string run_files = build_run_files(with_module, kernel, base, dir);
  // The guest holds its initramfs and, unpacked, the run's files, with a copy of their cpio.
  if (!shared) check_memory(run.memory_mib, file_size_or_zero(initrd) + run_files.size(), false);
  session.send_run_files(std::move(run_files), !with_module.module_path.empty());
  session.serve();
  return session.finish();
}

}  // namespace iotap::guest
