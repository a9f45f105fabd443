#include "iotap/latency/reasons.h"

#include <array>

namespace iotap::latency {
namespace {

struct Entry {
  int priority;
  std::string_view function;
  std::string_view reason;
};

// Kernel 6.1's names for latencytop's categories (latencytop.trans and latencytap.stp's table,
// reduced to the paths a user program sleeps in).
constexpr std::array kTable{
    Entry{1, "vfs_read", "Reading from file"},
    Entry{1, "vfs_readv", "Reading from file"},
    Entry{1, "vfs_write", "Writing to file"},
    Entry{1, "vfs_writev", "Writing to file"},
    Entry{0, "io_schedule", "Waiting for I/O"},
    Entry{0, "submit_bio_wait", "Waiting for block I/O"},
    Entry{1, "__x64_sys_sync", "Synchronizing the file system"},
    Entry{2, "vfs_fsync_range", "fsync() on a file"},
    Entry{2, "do_sys_openat2", "Opening file"},
    Entry{2, "__fput", "Closing file"},
    Entry{2, "blkdev_release", "Closing a block device"},
    Entry{2, "pipe_read", "Reading from a pipe"},
    Entry{2, "pipe_write", "Writing to a pipe"},
    Entry{2, "unix_stream_read_generic", "Reading from a socket"},
    Entry{2, "tcp_recvmsg", "Receiving TCP data"},
    Entry{2, "do_sys_poll", "Waiting for event (poll)"},
    Entry{2, "do_select", "Waiting for event (select)"},
    Entry{2, "do_epoll_wait", "Waiting for event (epoll)"},
    Entry{3, "futex_wait", "Userspace lock contention"},
    Entry{3, "futex_wait_requeue_pi", "Userspace lock contention"},
    Entry{3, "futex_lock_pi", "Userspace lock contention"},
    Entry{3, "do_nanosleep", "Application requested delay"},
    Entry{3, "kernel_wait4", "Waiting for a child process"},
    Entry{3, "do_wait", "Waiting for a child process"},
    Entry{3, "__x64_sys_sched_yield", "sched_yield()"},
    Entry{4, "__vm_munmap", "unmapping memory"},
    Entry{4, "vm_mmap_pgoff", "mmap() system call"},
    Entry{4, "do_mprotect_pkey", "mprotect() system call"},
    Entry{4, "__x64_sys_brk", "brk() system call"},
    Entry{4, "kernel_clone", "Creating a thread or process"},
    Entry{4, "do_execveat_common", "Executing a program"},
    Entry{4, "do_exit", "Exiting"},
    Entry{5, "exc_page_fault", "Page fault"},
    Entry{5, "handle_mm_fault", "Page fault"},
    Entry{6, "__lock_page_or_retry", "Waiting for a page"},
    Entry{6, "folio_wait_bit_common", "Waiting for a page"},
    Entry{7, "mutex_lock", "Kernel mutex contention"},
    Entry{7, "__mutex_lock", "Kernel mutex contention"},
    Entry{7, "rwsem_down_read_slowpath", "Kernel rw-semaphore contention"},
    Entry{7, "rwsem_down_write_slowpath", "Kernel rw-semaphore contention"},
};

// The scheduler's own frames: every sleep passes through them, so they say nothing of why.
bool is_scheduler(std::string_view function) {
  constexpr std::array kScheduler{
      std::string_view("__schedule"),        std::string_view("schedule"),
      std::string_view("schedule_timeout"),  std::string_view("io_schedule_timeout"),
      std::string_view("__wait_for_common"), std::string_view("schedule_hrtimeout_range_clock"),
      std::string_view("do_task_dead"),      std::string_view("schedule_preempt_disabled"),
  };
  for (const auto name : kScheduler) {
    if (function == name) return true;
  }
  return function.substr(0, 2) == "__" && function.find("_text_start") != std::string_view::npos;
}

}  // namespace

Reason classify(const std::vector<symbols::Frame>& frames) {
  const Entry* best = nullptr;
  for (const auto& frame : frames) {
    for (const auto& entry : kTable) {
      if (frame.function != entry.function) continue;
      if (best == nullptr || entry.priority > best->priority) best = &entry;
    }
  }
  if (best != nullptr) return {std::string(best->reason), std::string(best->function)};
  for (const auto& frame : frames) {
    if (!frame.function.empty() && !is_scheduler(frame.function))
      return {"Other: " + frame.function, frame.function};
  }
  return {"Unknown", ""};
}

}  // namespace iotap::latency
