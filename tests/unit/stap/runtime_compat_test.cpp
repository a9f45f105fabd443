// The SystemTap 4.8 runtime does not build against 6.1.0-56 and later 6.1 headers
// (task_work_cancel became task_work_cancel_func), drops relay flushes and never fires module
// kprobes on Linux 6.0+. iotap adapts a copy per kernel when a run needs it
// (stap/runtime_adaptation.h, its changes in stap/runtime_changes.cpp). These tests adapt the
// system's runtime to the guest kernel's headers and compare: each patched file must be the
// system's file with exactly the replacements written out here (a second statement of each
// change, not the table's), and every other file unchanged, so a change that is missing, wrong
// or goes further fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iotap/stap/runtime_adaptation.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

using Replacements = std::vector<std::pair<std::string, std::string>>;

// The system's FILE with each FROM replaced by its TO, every occurrence; each FROM must occur.
std::string system_file_patched(const std::string& file, const Replacements& replacements) {
  std::string text = read_file(std::string(SYSTEM_STAP_RUNTIME_DIR) + "/" + file);
  for (const auto& [from, to] : replacements) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << file << " lacks: " << from;
    for (; at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }
  return text;
}

// The system's runtime adapted to the guest kernel's headers, once for all the tests here.
const std::string& adapted_runtime() {
  static const TempDir dir("iotap-runtime-compat-test");
  static const std::string copy = [] {
    const std::string path = dir.path() + "/runtime";
    stap::adapt_runtime(SYSTEM_STAP_RUNTIME_DIR, stap::kernel_headers(GUEST_KERNEL), path);
    return path;
  }();
  return copy;
}

std::string adapted_file(const std::string& file) {
  return read_file(adapted_runtime() + "/" + file);
}

constexpr std::array<std::string_view, 5> kPatchedFiles = {
    "stp_task_work.c", "transport/relay_v2.c", "linux/kprobes.c", "transport/transport.c",
    "transport/control.c"};

TEST(StapRuntimeCompat, TaskWorkCancelFuncIsUsedWhenTheKernelHasIt) {
  const std::string header = stap::kernel_headers(GUEST_KERNEL).text("linux/task_work.h");
  ASSERT_FALSE(header.empty()) << "no linux/task_work.h in " << GUEST_KERNEL << "'s headers";
  const std::string applied = adapted_file("iotap-compat.txt");
  if (header.find("task_work_cancel_func") == std::string::npos) {
    EXPECT_EQ(applied.find("task_work_cancel_func"), std::string::npos);
    EXPECT_EQ(adapted_file("stp_task_work.c"), system_file_patched("stp_task_work.c", {}));
    GTEST_SKIP() << "this kernel's headers predate task_work_cancel_func: nothing to adapt";
  }
  EXPECT_NE(applied.find("task_work_cancel_func"), std::string::npos);
  // The type and the kallsyms name change; the calls keep going through the pointer.
  EXPECT_EQ(adapted_file("stp_task_work.c"),
            system_file_patched("stp_task_work.c",
                                {{"typedef typeof(&task_work_cancel) task_work_cancel_fn;",
                                  "typedef typeof(&task_work_cancel_func) task_work_cancel_fn;"},
                                 {"kallsyms_lookup_name(\"task_work_cancel\")",
                                  "kallsyms_lookup_name(\"task_work_cancel_func\")"}}));
}

// A flush into the last bytes of a relay sub-buffer is dropped by 4.8's runtime; the adapted
// copy switches sub-buffers first (relay_subbuf_tail, stap/runtime_changes.cpp).
TEST(StapRuntimeCompat, FlushesNeverLandInASubBuffersLastBytes) {
  EXPECT_NE(adapted_file("iotap-compat.txt").find("relay_subbuf_tail"), std::string::npos);
  EXPECT_EQ(
      adapted_file("transport/relay_v2.c"),
      system_file_patched("transport/relay_v2.c",
                          {{"\tif (buf->offset >= buf->chan->subbuf_size) {\n"
                            "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);",
                            "\tif (buf->offset >= buf->chan->subbuf_size || "
                            "buf->chan->subbuf_size - buf->offset < 64) {\n"
                            "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);"}}));
}

// kprobe.module("raid0").function(...) never fired on 6.1: the runtime looked module symbols up
// with kallsyms_on_each_symbol(), which walks vmlinux only since Linux 6.0. The adapted copy
// registers such probes by "module:symbol" name instead (the vm test RaidZeroDeepDive fires one).
TEST(StapRuntimeCompat, ModuleProbesNotFoundInVmlinuxAreRegisteredByName) {
  EXPECT_NE(adapted_file("iotap-compat.txt").find("module_probes_by_name"), std::string::npos);
  const std::string module_probe =
      "(skp->module && skp->module[0] && strcmp(skp->module, \"kernel\") != 0)";
  EXPECT_EQ(
      adapted_file("linux/kprobes.c"),
      system_file_patched(
          "linux/kprobes.c",
          {{"if (USE_KALLSYMS_ON_EACH_SYMBOL && kp->addr == 0)\n",
            "if (USE_KALLSYMS_ON_EACH_SYMBOL && kp->addr == 0 && !" + module_probe + ")\n"},
           {"if (USE_KALLSYMS_ON_EACH_SYMBOL && krp->kp.addr == 0)\n",
            "if (USE_KALLSYMS_ON_EACH_SYMBOL && krp->kp.addr == 0 && !" + module_probe + ")\n"},
           {"else if (!USE_KALLSYMS_ON_EACH_SYMBOL) {",
            "else if (!USE_KALLSYMS_ON_EACH_SYMBOL || (" + module_probe +
                " && skp->kprobe->u.kp.addr == 0)) {"}}));
}

// The control channel held the CPU's probe context with interrupts on, so an interrupt's probe
// hit in that window (a null_blk completion) was skipped; the adapted copy turns interrupts off
// for as long as it holds the context.
TEST(StapRuntimeCompat, TheControlChannelHoldsTheProbeContextWithInterruptsOff) {
  EXPECT_NE(adapted_file("iotap-compat.txt").find("ctl_context_irqs_off"), std::string::npos);
  const std::string get = "c = _stp_runtime_entryfn_get_context();";
  const std::string put = "_stp_runtime_entryfn_put_context(c);";
  const std::string save = "local_irq_save(iotap_irq_flags);\n\t";
  const std::string restore = "\n\tlocal_irq_restore(iotap_irq_flags);";
  EXPECT_EQ(
      adapted_file("transport/transport.c"),
      system_file_patched(
          "transport/transport.c",
          {{"\tunsigned long flags;\n\tstruct context* __restrict__ c = NULL;\n\n"
            "\t/* Prevent probe reentrancy while grabbing probe-used locks.  */\n\t" +
                get,
            "\tunsigned long flags, iotap_irq_flags;\n\tstruct context* __restrict__ c = "
            "NULL;\n\n\t/* Prevent probe reentrancy while grabbing probe-used locks.  */\n\t" +
                save + get},
           {"\t" + put + "\n\n\tif (do_io)", "\t" + put + restore + "\n\n\tif (do_io)"}}));
  EXPECT_EQ(adapted_file("transport/control.c"),
            system_file_patched(
                "transport/control.c",
                {{"\tstruct _stp_buffer *bptr;\n\tunsigned long flags;\n\tunsigned hlen;",
                  "\tstruct _stp_buffer *bptr;\n\tunsigned long flags, "
                  "iotap_irq_flags;\n\tunsigned hlen;"},
                 {"\t" + get + "\n\n\t/* get a buffer from the free pool */",
                  "\t" + save + get + "\n\n\t/* get a buffer from the free pool */"},
                 {"\t\t" + put + "\n\t\treturn -ENOMEM;",
                  "\t\t" + put + "\n\t\tlocal_irq_restore(iotap_irq_flags);\n\t\treturn -ENOMEM;"},
                 {"\t" + put + "\n\n\t/* It would be nice",
                  "\t" + put + restore + "\n\n\t/* It would be nice"},
                 {"\tstruct _stp_buffer *bptr;\n\tunsigned long flags;\n\n\t" + get,
                  "\tstruct _stp_buffer *bptr;\n\tunsigned long flags, iotap_irq_flags;\n\n\t" +
                      save + get},
                 {"put_context:\n\t" + put + "\n}", "put_context:\n\t" + put + restore + "\n}"}}));
}

// Nothing else in the copy differs from the system's runtime.
TEST(StapRuntimeCompat, EveryOtherFileIsTheSystemsOwn) {
  const std::filesystem::path system(SYSTEM_STAP_RUNTIME_DIR);
  size_t compared = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(system)) {
    if (!entry.is_regular_file()) continue;
    const std::string file = entry.path().lexically_relative(system).string();
    bool patched = false;
    for (const auto& name : kPatchedFiles) patched = patched || name == file;
    if (patched) continue;
    EXPECT_EQ(adapted_file(file), read_file(entry.path().string())) << file;
    ++compared;
  }
  EXPECT_GT(compared, 100U);
  // And nothing added but the record of what was applied.
  std::vector<std::string> expected = files_under(SYSTEM_STAP_RUNTIME_DIR);
  expected.push_back("iotap-compat.txt");
  std::ranges::sort(expected);
  std::vector<std::string> files = files_under(adapted_runtime());
  std::ranges::sort(files);
  EXPECT_EQ(files, expected);
}

}  // namespace
}  // namespace iotap
