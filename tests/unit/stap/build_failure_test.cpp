// stap's pass 4 failing in SystemTap's runtime (recorded: 4.8's own runtime compiled for
// 6.12.117+deb12-cloud-amd64, 183 lines of kbuild output) becomes one paragraph with the first
// error; other failures keep stap's words.
#include "iotap/stap/build_failure.h"

#include <gtest/gtest.h>

#include <string>

#include "iotap/util/files.h"

namespace iotap::stap {
namespace {

TEST(RuntimeBuildFailure, KbuildsHundredsOfLinesBecomeTheFirstErrorAndWhatItMeans) {
  const std::string recorded = read_file(UNIT_DATA_DIR "/stap_pass4_kernel_too_new.txt");
  EXPECT_EQ(explain_runtime_build_failure(recorded),
            "this kernel is newer than the runtime adaptation covers: SystemTap 4.8's runtime, as "
            "iotap adapts it (Linux 6.1 and 6.12; docs/kernels.md says how to add a kernel), does "
            "not build against its headers. stap's first error:\n"
            "  /usr/share/systemtap/runtime/linux/stap_mmap_lock.h:10:43: error: ‘struct "
            "mm_struct’ has no member named ‘mmap_sem’; did you mean ‘mmap_base’?\n");
}

TEST(RuntimeBuildFailure, AScriptsOwnErrorsAreLeftToStap) {
  // Pass 2: the script's probe point or variable.
  EXPECT_EQ(explain_runtime_build_failure("semantic error: no match\nPass 2: analysis failed.\n"),
            "");
  // Pass 4 on a guru script's embedded C: the error is in the generated source, not the runtime.
  EXPECT_EQ(explain_runtime_build_failure("/tmp/stapXY/iotap_src.c:120:3: error: 'x' undeclared\n"
                                          "Pass 4: compilation failed.  [man error::pass4]\n"),
            "");
  // An adapted copy's error is the runtime's too.
  EXPECT_NE(explain_runtime_build_failure(
                "/root/.systemtap/iotap-runtime/ab12/linux/print.c:3:1: error: no member\n"
                "Pass 4: compilation failed.  [man error::pass4]\n"),
            "");
}

}  // namespace
}  // namespace iotap::stap
