// The SystemTap 4.8 runtime does not build against 6.1.0-56 and later 6.1 headers
// (task_work_cancel became task_work_cancel_func). cmake/StapRuntimeCompat.cmake adapts a copy
// at build time; this fails if the adaptation stops being applied while the kernel needs it.
#include <gtest/gtest.h>

#include "util/files.h"

namespace iotap {
namespace {

TEST(StapRuntimeCompat, TaskWorkCancelFuncIsUsedWhenTheKernelHasIt) {
  const std::string header = read_file(TASK_WORK_HEADER);
  const std::string runtime = read_file(std::string(STAP_RUNTIME_DIR) + "/stp_task_work.c");
  const std::string applied = read_file(std::string(STAP_RUNTIME_DIR) + "/iotap-compat.txt");
  if (header.find("task_work_cancel_func") == std::string::npos) {
    EXPECT_EQ(applied.find("task_work_cancel_func"), std::string::npos);
    GTEST_SKIP() << "this kernel's headers predate task_work_cancel_func: nothing to adapt";
  }
  EXPECT_NE(applied.find("task_work_cancel_func"), std::string::npos);
  EXPECT_NE(runtime.find("typeof(&task_work_cancel_func)"), std::string::npos);
  EXPECT_NE(runtime.find("kallsyms_lookup_name(\"task_work_cancel_func\")"), std::string::npos);
  EXPECT_EQ(runtime.find("typeof(&task_work_cancel)"), std::string::npos);
}

// A flush into the last bytes of a relay sub-buffer is dropped by 4.8's runtime; the adapted
// copy switches sub-buffers first (see cmake/StapRuntimeCompat.cmake).
TEST(StapRuntimeCompat, FlushesNeverLandInASubBuffersLastBytes) {
  const std::string applied = read_file(std::string(STAP_RUNTIME_DIR) + "/iotap-compat.txt");
  const std::string relay = read_file(std::string(STAP_RUNTIME_DIR) + "/transport/relay_v2.c");
  EXPECT_NE(applied.find("relay_subbuf_tail"), std::string::npos);
  EXPECT_NE(relay.find("buf->chan->subbuf_size - buf->offset < 64"), std::string::npos);
}

// kprobe.module("raid0").function(...) never fired on 6.1: the runtime looked module symbols up
// with kallsyms_on_each_symbol(), which walks vmlinux only since Linux 6.0. The adapted copy
// registers such probes by "module:symbol" name instead (the vm test RaidZeroDeepDive fires one).
TEST(StapRuntimeCompat, ModuleProbesNotFoundInVmlinuxAreRegisteredByName) {
  const std::string applied = read_file(std::string(STAP_RUNTIME_DIR) + "/iotap-compat.txt");
  const std::string kprobes = read_file(std::string(STAP_RUNTIME_DIR) + "/linux/kprobes.c");
  EXPECT_NE(applied.find("module_probes_by_name"), std::string::npos);
  EXPECT_NE(kprobes.find("kp->addr == 0 && !(skp->module && skp->module[0]"), std::string::npos);
  EXPECT_NE(kprobes.find("krp->kp.addr == 0 && !(skp->module && skp->module[0]"),
            std::string::npos);
  EXPECT_EQ(kprobes.find("else if (!USE_KALLSYMS_ON_EACH_SYMBOL) {"), std::string::npos);
}

}  // namespace
}  // namespace iotap
