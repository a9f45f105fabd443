// SystemTap 4.8's runtime adapted to the second guest kernel (6.12: SECOND_GUEST_KERNEL, whose
// headers setup.sh installs), beside the first (GUEST_KERNEL, 6.1). Each kernel's headers call
// for exactly the changes named here, decided by what the headers contain; the files no change
// touches stay the system's; the kbuild variables are those 6.12's kbuild needs and none for
// 6.1. Whether the adapted runtime builds and runs is the stap tier's and the vm tier's to show
// (their _on_6.12 cases): here, that the adaptation is the one intended. Every change is stated a
// second time, not as the table states it: the whole difference between the system's runtime and
// the 6.12 copy, as diff(1) prints it, is written out in data/runtime_for_6.12.diff (and the
// tapsets' in data/tapsets_for_6.12.diff), so a change that is missing, wrong or goes further
// fails, as runtime_compat_test.cpp holds 6.1's four.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "iotap/stap/runtime_adaptation.h"
#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

const std::vector<std::string> kFirstKernelChanges{"task_work_cancel_func", "relay_subbuf_tail",
                                                   "module_probes_by_name", "ctl_context_irqs_off"};

// The first kernel's, then what 6.4-6.12 changed under SystemTap 4.8.
std::vector<std::string> second_kernel_changes() {
  std::vector<std::string> names = kFirstKernelChanges;
  names.insert(names.end(), {"vmalloc_macros", "linux_unaligned_h", "strlcpy_removed",
                             "get_user_page_vma_remote", "kallsyms_callback_without_module",
                             "for_each_process_thread", "module_memory", "flush_system_percpu_wq",
                             "utrace_probe_includes_mm", "uprobe_register_returns_uprobe",
                             "task_work_add_twa_resume", "empty_bodies"});
  return names;
}

class RuntimeForKernel : public ::testing::Test {
 protected:
  static std::string second_kernel() {
    const std::string release = SECOND_GUEST_KERNEL;
    if (release.empty()) ADD_FAILURE() << "no 6.12 kernel installed: ./setup.sh installs it";
    return release;
  }
  std::vector<std::string> adapt(const std::string& release) {
    return adapt_runtime(SYSTEM_STAP_RUNTIME_DIR, kernel_headers(release), copy_);
  }
  [[nodiscard]] std::string adapted(const std::string& file) const {
    return read_file(copy_ + "/" + file);
  }

  TempDir tmp_{"iotap-runtime-newer-test"};
  std::string copy_ = tmp_.path() + "/runtime";
};

TEST_F(RuntimeForKernel, TheFirstKernelGetsItsFourChangesAndNoKbuildVariables) {
  EXPECT_EQ(adapt(GUEST_KERNEL), kFirstKernelChanges);
  EXPECT_TRUE(kbuild_variables(kernel_headers(GUEST_KERNEL)).empty());
  EXPECT_FALSE(kernel_headers(GUEST_KERNEL).warns("-Wextra")) << "6.1 has -Wextra under W=1 only";
}

TEST_F(RuntimeForKernel, TheSecondKernelGetsEveryChangeAndTheKbuildVariables) {
  const std::string release = second_kernel();
  if (release.empty()) return;
  EXPECT_EQ(adapt(release), second_kernel_changes());
  EXPECT_EQ(adapted("iotap-compat.txt"), [] {
    std::string record;
    for (const auto& name : second_kernel_changes()) record += name + "\n";
    return record;
  }());
  const KernelHeaders headers = kernel_headers(release);
  EXPECT_TRUE(headers.warns("-Wextra"));
  EXPECT_EQ(
      kbuild_variables(headers),
      (std::vector<std::string>{"KCFLAGS=-Wno-missing-prototypes -Wno-missing-declarations "
                                "-Wno-old-style-declaration",
                                "CFLAGS_MODULE=$(if $(findstring tracequery,$(M)),-Wno-error)"}));
}

// A few of the replacements, stated again: the calls 6.12 has in place of the ones it removed.
TEST_F(RuntimeForKernel, TheSecondKernelsCopyCallsTheApisItHas) {
  const std::string release = second_kernel();
  if (release.empty()) return;
  adapt(release);
  const std::string uprobes = adapted("linux/uprobes-inode.c");
  EXPECT_NE(uprobes.find("uprobe_register (inst->inode, c->offset, 0, &inst->kconsumer)"),
            std::string::npos);
  EXPECT_EQ(uprobes.find("(void) uprobe_unregister (inst->inode"), std::string::npos);
  EXPECT_NE(
      adapted("transport/transport.c").find("kallsyms_lookup_name (\"uprobe_unregister_nosync\")"),
      std::string::npos);
  EXPECT_EQ(adapted("linux/task_finder2.c").find("do_each_thread"), std::string::npos);
  EXPECT_NE(adapted("linux/print.c").find("THIS_MODULE->mem[MOD_TEXT].base"), std::string::npos);
  EXPECT_NE(adapted("transport/symbols.c").find("mod->mem[MOD_TEXT].size"), std::string::npos);
  EXPECT_NE(adapted("linux/runtime.h").find("#define strlcpy(dest, src, count)"),
            std::string::npos);
  EXPECT_NE(adapted("sym.c").find("#include <linux/unaligned.h>"), std::string::npos);
  EXPECT_NE(adapted("stp_task_work.c").find("task_work_add(task, twork, TWA_RESUME)"),
            std::string::npos);
}

// Every file of `copy` that differs from `system`'s, as `diff -U2` shows it, one after another in
// the files' order; the record of the changes applied is left out (the tests above read it).
std::string differences(const std::string& system, const std::string& copy) {
  std::string text;
  for (const std::string& file : files_under(copy)) {
    if (file == "iotap-compat.txt") continue;
    const std::string theirs = system + "/" + file;
    const std::string ours = copy + "/" + file;
    if (read_file(theirs) == read_file(ours)) continue;
    const Captured diff =
        capture({"diff", "-U2", "--label", "a/" + file, "--label", "b/" + file, theirs, ours});
    EXPECT_EQ(diff.status.code, 1) << "diff " << file << ": " << diff.err;
    text += diff.out;
  }
  return text;
}

TEST_F(RuntimeForKernel, TheSecondKernelsCopyIsTheSystemsWithExactlyTheChangesWrittenOutAgain) {
  const std::string release = second_kernel();
  if (release.empty()) return;
  adapt(release);
  EXPECT_EQ(differences(SYSTEM_STAP_RUNTIME_DIR, copy_),
            read_file(std::string(UNIT_DATA_DIR) + "/runtime_for_6.12.diff"));
}

TEST_F(RuntimeForKernel, TheSecondKernelsTapsetsAreTheSystemsWithExactlyTheChangesWrittenOutAgain) {
  const std::string release = second_kernel();
  if (release.empty()) return;
  const std::string tapsets = std::string(SYSTEM_STAP_RUNTIME_DIR) + "/../tapset";
  adapt_runtime(tapsets, kernel_headers(release), copy_, tapset_changes());
  EXPECT_EQ(differences(tapsets, copy_),
            read_file(std::string(UNIT_DATA_DIR) + "/tapsets_for_6.12.diff"));
}

// The files the changes name are the only ones that differ from the system's; none is added but
// the record.
TEST_F(RuntimeForKernel, TheSecondKernelsCopyChangesOnlyTheFilesItsChangesName) {
  const std::string release = second_kernel();
  if (release.empty()) return;
  adapt(release);
  std::set<std::string> named;
  for (const RuntimeChange& change : runtime_changes())
    for (const RuntimeReplacement& replacement : change.replacements)
      named.insert(replacement.file);
  std::vector<std::string> expected = files_under(SYSTEM_STAP_RUNTIME_DIR);
  expected.emplace_back("iotap-compat.txt");
  std::ranges::sort(expected);
  std::vector<std::string> files = files_under(copy_);
  std::ranges::sort(files);
  EXPECT_EQ(files, expected);
  for (const std::string& file : files) {
    if (named.contains(file) || file == "iotap-compat.txt") continue;
    EXPECT_EQ(adapted(file), read_file(std::string(SYSTEM_STAP_RUNTIME_DIR) + "/" + file)) << file;
  }
}

// SystemTap's dev.stp reads block_device's bd_part unguarded where bd_partno is gone (6.10+), and
// aux_syscalls.stp's wait and shm constants moved to uapi headers: the tapsets are adapted for
// 6.12, and left as they are for 6.1 (no copy).
TEST_F(RuntimeForKernel, SystemTapsOwnTapsetsAreAdaptedWhereTheKernelNeedsIt) {
  const std::string tapsets = std::string(SYSTEM_STAP_RUNTIME_DIR) + "/../tapset";
  const auto applying = [](const std::string& release) {
    std::vector<std::string> names;
    for (const RuntimeChange& change : tapset_changes())
      if (change_applies(change, kernel_headers(release))) names.push_back(change.name);
    return names;
  };
  EXPECT_TRUE(applying(GUEST_KERNEL).empty());
  const std::string release = second_kernel();
  if (release.empty()) return;
  EXPECT_EQ(applying(release),
            (std::vector<std::string>{"dev_stp_without_bd_partno", "aux_syscalls_uapi_wait_h",
                                      "aux_syscalls_uapi_shm_h"}));
  adapt_runtime(tapsets, kernel_headers(release), copy_, tapset_changes());
  const std::string dev = adapted("linux/dev.stp");
  EXPECT_NE(dev.find("else if (@defined(@cast(bdev, \"block_device\", \"kernel\")->bd_part) && "
                     "bdev->bd_part)"),
            std::string::npos)
      << dev;
}

}  // namespace
}  // namespace iotap::stap
