// What a failed guest's console says went wrong (guest/guest_logs.h): the kernel's BUG line,
// where its CPU was, and the call trace's sure frames, so that a hang names the code it hung in.
#include "iotap/guest/guest_logs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

// In the kernel's format: a soft lockup's BUG line, registers, call trace and panic. The BUG,
// panic and user-space lines are those of the guest that stopped a RecordTest run on
// 2026-11-27 (iotap showed only its last 12 console lines, after the trace); the frames are
// made up, as the kernel prints them.
const std::string kSoftLockup = UNIT_DATA_DIR "/console_soft_lockup.log";

TEST(KernelFailure, NamesTheBugWhereItsCpuWasAndTheSureFramesOfItsTrace) {
  EXPECT_EQ(kernel_failure(kSoftLockup),
            "\n  the guest's kernel: watchdog: BUG: soft lockup - CPU#0 stuck for 78s! "
            "[stapio:4928]"
            "\n  its CPU at: native_queued_spin_lock_slowpath+0x5d/0x200"
            "\n  called from: _raw_spin_lock+0x25/0x30 < _stp_ctl_write_cmd+0x3c/0x110 "
            "[syscall_events] < vfs_write+0xb9/0x3f0 < ksys_write+0x6b/0xf0 < "
            "do_syscall_64+0x5d/0xc0 < entry_SYSCALL_64_after_hwframe+0x6e/0xd8"
            "\n  the guest's kernel: Kernel panic - not syncing: softlockup: hung tasks");
}

TEST(KernelFailure, SaysNothingOfAConsoleWithoutABugOrAMissingOne) {
  const TempDir dir("iotap-guest-logs-test");
  std::ofstream(dir / "console.log") << "[    1.0] iotap guest: waiting for a run\r\n";
  EXPECT_EQ(kernel_failure(dir / "console.log"), "");
  EXPECT_EQ(kernel_failure(dir / "missing.log"), "");
}

// The lines under "last console lines:" and "qemu said:". A guest whose kernel hung at once
// leaves an empty console (its kernel is quiet): the heading then said nothing under it, as if
// the lines were lost.
TEST(LastLines, KeepsTheLastLinesIndentedAndSaysWhenThereAreNone) {
  const TempDir dir("iotap-guest-logs-test");
  std::ofstream(dir / "console.log") << "one\r\ntwo\nthree\n";
  std::ofstream(dir / "empty.log");
  EXPECT_EQ(last_lines(dir / "console.log", 2), "    two\n    three\n");
  EXPECT_EQ(last_lines(dir / "console.log", 12), "    one\n    two\n    three\n");
  EXPECT_EQ(last_lines(dir / "empty.log", 12), "    (nothing)\n");
  EXPECT_EQ(last_lines(dir / "missing.log", 12), "    (nothing)\n");
}

}  // namespace
}  // namespace iotap::guest
