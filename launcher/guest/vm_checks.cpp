#include "vm_checks.h"

#include <sys/un.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "accelerator.h"
#include "guest_channels.h"
#include "initramfs.h"
#include "iotap/config.h"
#include "iotap/guest/elf_dependencies.h"
#include "iotap/guest/vm_runner.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/temp_dir.h"
#include "kernel.h"
#include "qemu_command.h"

namespace iotap::guest {

namespace {

// Guest memory, measured with this kernel under TCG: the kernel and its tables take about 64 MiB,
// unpacking the initramfs needs it twice (the archive and the files it holds, until the archive
// is freed), and the run itself needs some room: 88 MiB fails to unpack a 14 MiB initramfs,
// 96 MiB boots. kMemoryOverheadMib covers the kernel and a margin for staprun and the program.
constexpr uint64_t kMemoryOverheadMib = 80;
// The compiled module is not known before the compile; scripts on the bundled tapsets compile
// to well under this.
constexpr uint64_t kModuleAllowanceBytes = 4ULL << 20;

uint64_t memory_needed_mib(uint64_t initrd_bytes) {
  constexpr uint64_t kMib = 1ULL << 20;
  return kMemoryOverheadMib + (2 * initrd_bytes + kMib - 1) / kMib;
}

}  // namespace

void check_memory(unsigned memory_mib, uint64_t initrd_bytes, bool estimated) {
  const uint64_t needed = memory_needed_mib(initrd_bytes);
  if (memory_mib >= needed) return;
  throw UserError("--memory " + std::to_string(memory_mib) +
                  " MiB is too small for the guest: its initramfs is " +
                  (estimated ? "about " : "") + std::to_string((initrd_bytes + (1 << 19)) >> 20) +
                  " MiB, and the kernel needs twice that plus " +
                  std::to_string(kMemoryOverheadMib) + " MiB to unpack it and run; use --memory " +
                  std::to_string(needed) + " or more");
}

uint64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

void check_socket_paths() {
  // The temp dir's name has this length exactly (its pid is this process's); see qemu_command.
  const std::string dir = TempDir::pattern(kTempPrefix);
  std::string longest;
  for (const PortSocket& port : kPortSockets) {
    if (std::strlen(port.socket) > longest.size()) longest = port.socket;
  }
  const std::string socket = dir + "/" + longest;
  constexpr size_t kMaxPath = sizeof(sockaddr_un::sun_path) - 1;
  if (socket.size() > kMaxPath) {
    throw UserError("TMPDIR is too long for the guest's sockets: they would be named like '" +
                    socket + "' (" + std::to_string(socket.size()) +
                    " bytes), and a unix socket path holds at most " + std::to_string(kMaxPath) +
                    "; point TMPDIR at a shorter directory (TMPDIR=/tmp)");
  }
}

bool guest_is_emulated() {
  return host_accelerator() == Accelerator::kTcg;
}

void check_vm_run(const std::string& release, unsigned memory_mib,
                  const std::vector<std::string>& programs, const std::vector<std::string>& files) {
  const GuestKernel kernel = GuestKernel::find(release);
  find_qemu();
  check_socket_paths();
  uint64_t bytes = file_size_or_zero(base_initramfs(kernel, data_paths().cache).path);
  for (const auto& program : programs) {
    bytes += file_size_or_zero(program);
    for (const auto& library : runtime_dependencies(program)) bytes += file_size_or_zero(library);
  }
  for (const auto& file : files) bytes += file_size_or_zero(file);
  check_memory(memory_mib, bytes + kModuleAllowanceBytes, true);
}

}  // namespace iotap::guest
