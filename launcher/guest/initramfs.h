#pragma once
// The guest's root filesystem, assembled from the host's own files.
//
// Two parts: a base (busybox, staprun, mdadm, dmsetup, their libraries, the block and md/dm
// kernel modules and init), the initramfs the guest boots, cached in the build tree and rebuilt
// only when one of its inputs changes; and a small per-run part (the compiled module, the
// program to run with its libraries, the stack to build), a cpio the guest receives over a port
// once it has booted and unpacks at / (guest/init.sh).
#include <set>
#include <string>
#include <string_view>

#include "cpio_writer.h"
#include "kernel.h"

namespace iotap::guest {

class InitramfsBuilder {
 public:
  explicit InitramfsBuilder(const std::string& path) : cpio_(path) {}

  // Adds a host file at the same path in the guest, with every symlink on the way (a merged
  // /usr's /lib -> usr/lib included), so the guest resolves the path as the host does.
  void add_host_path(const std::string& host_path);
  // Adds a program and everything it needs to start: interpreter and shared libraries.
  void add_program(const std::string& host_path);
  void add_file(const std::string& guest_path, std::string_view content, uint32_t mode = 0644) {
    cpio_.add_file(guest_path, content, mode);
  }
  void add_directory(const std::string& guest_path) { cpio_.add_directory(guest_path); }
  // Host files (by their resolved paths) the guest has already: add_host_path leaves them out.
  void leave_out(const std::set<std::string>& host_files) { left_out_ = &host_files; }
  void finish() { cpio_.finish(); }

 private:
  CpioWriter cpio_;
  const std::set<std::string>* left_out_ = nullptr;
};

struct BaseImage {
  std::string path;
  // The host files in it, by resolved path: a run's files leave them out. The image's key
  // covers each one's size and modification time, so a changed one makes a new image.
  std::set<std::string> host_files;
};

// The cached base image for this kernel; builds it first if needed.
BaseImage base_initramfs(const GuestKernel& kernel, const std::string& cache_dir);

// The modules init.sh loads at boot, from the base's /lib/iotap/channel-modules: the
// virtio-serial ports the run's files come over.
const std::vector<std::string>& channel_module_names();

// The kernel modules any stack may need; the base carries them all.
const std::vector<std::string>& stack_module_names();

}  // namespace iotap::guest
