// Why a kernel probe did not resolve, from stap 4.8's real stderr texts (recorded on this host
// with `stap -p2 -r 6.1.0-56-cloud-amd64`; "without debuginfo" by SYSTEMTAP_DEBUGINFO_PATH=/none
// and by a tree without vmlinux).
#include "iotap/stap/probe_failure.h"

#include <gtest/gtest.h>

#include <string>

namespace iotap::stap {
namespace {

const KernelDebugState kWithDebuginfo{"6.1.0-56-cloud-amd64", true, "apt-get install X-dbg"};
const KernelDebugState kWithout{"6.1.0-56-cloud-amd64", false,
                                "apt-get install linux-image-6.1.0-56-cloud-amd64-dbg"};

// With debuginfo: a function 6.1 no longer has (SystemTap's own ioblktime.stp probes it).
constexpr const char* kGoneFunction =
    "semantic error: while resolving probe point: identifier 'kernel' at <input>:1:7\n"
    "        source: probe kernel.function(\"generic_make_request\") { println($bio) }\n"
    "                      ^\n"
    "\n"
    "semantic error: no match (similar functions: ptrace_request, eeprom_parse_request, "
    "deadline_move_request, generic_add_lease, elv_latter_request)\n"
    "\n"
    "Pass 2: analysis failed.  [man error::pass2]\n";

// Without debuginfo, -r RELEASE: stap says only "no match".
constexpr const char* kNoDebuginfo =
    "semantic error: while resolving probe point: identifier 'kernel' at <input>:1:7\n"
    "        source: probe kernel.function(\"submit_bio\") { println($bio) }\n"
    "                      ^\n"
    "\n"
    "semantic error: no match\n"
    "\n"
    "Pass 2: analysis failed.  [man error::pass2]\n";

// Without debuginfo, -r TREE (a tree without vmlinux).
constexpr const char* kTreeWithoutVmlinux =
    "semantic error: while resolving probe point: identifier 'kernel' at <input>:1:7\n"
    "        source: probe kernel.function(\"submit_bio\") { println($bio) }\n"
    "                      ^\n"
    "\n"
    "semantic error: missing x86_64 kernel/module debuginfo [man warning::debuginfo] under "
    "'/work/main/build/cache/kernel-tree-6.1.0-56-cloud-amd64'\n"
    "\n"
    "Pass 2: analysis failed.  [man error::pass2]\n";

// Without debuginfo: a standard tapset (vfs.read), the failure in the tapset's own file.
constexpr const char* kTapsetNoDebuginfo =
    "semantic error: while resolving probe point: identifier 'kernel' at "
    "/usr/share/systemtap/tapset/linux/vfs.stp:980:18\n"
    "        source: probe vfs.read = kernel.function(\"vfs_read\")\n"
    "                                 ^\n"
    "\n"
    "semantic error: no match\n"
    "\n"
    "Pass 2: analysis failed.  [man error::pass2]\n"
    "Number of similar error messages suppressed: 1.\n";

// Without debuginfo: @cast to a kernel type.
constexpr const char* kCastNoDebuginfo =
    "semantic error: type definition 'struct request' not found in 'kernel': operator '@cast' at "
    "<input>:1:54\n"
    "        source: probe kernel.trace(\"block:block_rq_issue\") { println(@cast($rq, \"struct "
    "request\", \"kernel\")->__data_len) }\n"
    "                                                                     ^\n"
    "\n"
    "semantic error: unresolved type : operator '@cast' at :1:54\n"
    "Pass 2: analysis failed.  [man error::pass2]\n";

// With debuginfo: .return of an inlined function.
constexpr const char* kInlined =
    "WARNING: cannot probe .return of 1 inlined functions  bio_advance_iter\n"
    "semantic error: while resolving probe point: identifier 'kernel' at <input>:1:7\n"
    "        source: probe kernel.function(\"bio_advance_iter\").return { println(1) }\n"
    "                      ^\n"
    "\n"
    "semantic error: no match (similar functions: bio_advance_iter, rb_advance_iter, "
    "bio_no_advance_iter, bio_advance, __bio_advance)\n"
    "\n"
    "Pass 2: analysis failed.  [man error::pass2]\n";

// With debuginfo: a function md's raid0 module does not have.
constexpr const char* kModuleFunction =
    "semantic error: while resolving probe point: identifier 'module' at <input>:1:7\n"
    "        source: probe module(\"raid0\").function(\"no_such_fn\") { println(1) }\n"
    "                      ^\n"
    "\n"
    "semantic error: no match (similar functions: bio_op, bio_set_dev, map_sector, size_mul, "
    "ERR_PTR)\n";

TEST(ProbeFailureTest, AGoneFunctionNamesWhatToProbeInstead) {
  EXPECT_EQ(explain_probe_failure(kGoneFunction, kWithDebuginfo),
            "iotap: kernel 6.1.0-56-cloud-amd64 has no function generic_make_request: use "
            "kernel.function(\"submit_bio\") or kernel.trace(\"block:block_bio_queue\")\n");
}

TEST(ProbeFailureTest, AnUnknownFunctionPointsAtStapsSimilarOnes) {
  EXPECT_EQ(explain_probe_failure(kModuleFunction, kWithDebuginfo),
            "iotap: module raid0 has no function no_such_fn (stap names similar ones above)\n");
}

TEST(ProbeFailureTest, MissingDebuginfoNamesThePackageToInstall) {
  const std::string expected =
      "iotap: kernel 6.1.0-56-cloud-amd64 has no debuginfo on this host: kernel.function() and "
      "module().function() probes, $variables and @cast to kernel types need it (so do the "
      "ioblock, vfs, scheduler and nd_syscall tapsets): apt-get install "
      "linux-image-6.1.0-56-cloud-amd64-dbg\n";
  EXPECT_EQ(explain_probe_failure(kNoDebuginfo, kWithout), expected);
  EXPECT_EQ(explain_probe_failure(kTapsetNoDebuginfo, kWithout), expected);
  EXPECT_EQ(explain_probe_failure(kCastNoDebuginfo, kWithout), expected);
  EXPECT_EQ(explain_probe_failure(kGoneFunction, kWithout), expected)
      << "without DWARF stap cannot tell a missing function from missing debuginfo";
}

TEST(ProbeFailureTest, StapsOwnMissingDebuginfoIsBelievedEvenWhenIotapFoundSome) {
  const std::string why = explain_probe_failure(kTreeWithoutVmlinux, kWithDebuginfo);
  EXPECT_TRUE(why.starts_with("iotap: kernel 6.1.0-56-cloud-amd64 has no debuginfo")) << why;
}

TEST(ProbeFailureTest, AnInlinedFunctionIsSaidSo) {
  EXPECT_EQ(explain_probe_failure(kInlined, kWithDebuginfo),
            "iotap: bio_advance_iter is inlined in this kernel (stap's warning above): probe its "
            "entry (no .return), a caller, or a tracepoint\n");
}

TEST(ProbeFailureTest, OtherFailuresGetNothingAdded) {
  EXPECT_EQ(explain_probe_failure("semantic error: unresolved arity-0 global array x\n"
                                  "Pass 2: analysis failed.  [man error::pass2]\n",
                                  kWithout),
            "");
  EXPECT_EQ(explain_probe_failure("parse error: expected 'probe'\n", kWithDebuginfo), "");
}

TEST(ProbeFailureTest, KnownReplacements) {
  EXPECT_EQ(replacement_for("generic_make_request"),
            "kernel.function(\"submit_bio\") or kernel.trace(\"block:block_bio_queue\")");
  EXPECT_EQ(replacement_for("submit_bio"), "");
}

}  // namespace
}  // namespace iotap::stap
