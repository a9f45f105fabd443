#pragma once
// What a guest run checks before anything slow (vm_runner.h's check_vm_run), and again once
// its files are made: the guest's memory against its initramfs, the sockets' paths.
#include <cstdint>
#include <string>

namespace iotap::guest {

// The run's temp dir's prefix: its sockets are named under it.
inline constexpr const char* kTempPrefix = "iotap-vm";

// Throws UserError when a guest of `memory_mib` cannot unpack and run an initramfs of
// `initrd_bytes` (`estimated`: a size guessed before the module is compiled).
void check_memory(unsigned memory_mib, uint64_t initrd_bytes, bool estimated);

// The file's size; 0 when it is not there.
uint64_t file_size_or_zero(const std::string& path);

// Throws UserError when TMPDIR makes the guest's sockets' paths too long for a unix socket.
void check_socket_paths();

}  // namespace iotap::guest
