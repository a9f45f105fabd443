#pragma once
// SystemTap 4.8's runtime adapted to one kernel, made when a run first needs it.
//
// The runtime (/usr/share/systemtap/runtime) is compiled into every module, against the target
// kernel's headers, and 4.8's does not build against kernels newer than it knows, nor against
// stable kernels that changed an API under it (6.1.0-56's task_work_cancel_func). iotap compiles
// with a copy (`stap -R`): the system's runtime with the changes of runtime_changes() that the
// kernel's headers call for, each decided from what the headers contain (Debian backports
// features into point releases, so a version number decides nothing). The system's copy is
// never edited. The copy is made per kernel, for any target: the guest, a host over ssh, the
// local machine, a --save-module for another machine.
#include <string>
#include <vector>

namespace iotap::stap {

// One replacement in one runtime file: every occurrence of `from` becomes `to`, and a `from`
// that does not occur means this SystemTap's runtime is not the one the change was written for.
struct RuntimeReplacement {
  std::string file;  // relative to the runtime's root, e.g. "linux/kprobes.c"
  std::string from;
  std::string to;
};

// What a change asks of the kernel's headers: that `header` (relative to an include directory,
// e.g. "linux/task_work.h") contains `text`, or, with `absent`, that it does not (a header that is
// missing contains nothing).
struct HeaderFact {
  std::string header;
  std::string text;
  bool absent = false;
};

struct RuntimeChange {
  std::string name;              // recorded in the copy's iotap-compat.txt, one name a line
  std::string upstream;          // the SystemTap commit it mirrors, or why it is iotap's own
  std::vector<HeaderFact> when;  // all must hold; none: always applied
  std::vector<RuntimeReplacement> replacements;
  // Warnings kbuild turns on for every module (e.g. "-Wextra", 6.8+ without W=1) that this
  // change answers; all must be on. None: the headers alone decide.
  std::vector<std::string> when_kbuild_warns{};
};

// Every change iotap knows (runtime_changes.cpp), in the order they are applied.
const std::vector<RuntimeChange>& runtime_changes();

// The changes to SystemTap's own tapsets (/usr/share/systemtap/tapset) that a kernel's headers
// call for (runtime_changes_newer_kernels.cpp): files relative to the tapset directory.
const std::vector<RuntimeChange>& tapset_changes();

// A kernel's headers as a module build sees them: include directories searched in order, and
// the warnings kbuild turns on for every module whatever W= says.
struct KernelHeaders {
  std::vector<std::string> include_dirs;
  std::vector<std::string> always_on_warnings{};  // e.g. "-Wextra", "-Wmissing-prototypes"
  // The header's text from the first directory that has it; "" when none does.
  [[nodiscard]] std::string text(const std::string& header) const;
  [[nodiscard]] bool warns(const std::string& flag) const;
};

// /lib/modules/RELEASE/build/include, its arch/x86/include, and /lib/modules/RELEASE/source/include
// (Debian splits them), and the build tree's scripts/Makefile.extrawarn; no directories when the
// release has no headers installed.
KernelHeaders kernel_headers(const std::string& release);

// The -W flags a Makefile.extrawarn's text adds to KBUILD_CFLAGS outside any conditional (6.1
// adds -Wextra only under W=1; 6.8+ always), in order.
std::vector<std::string> always_on_warnings(const std::string& extrawarn_text);

// Make variables for stap's `-B` that let SystemTap 4.8's generated C (its autoconf probes, the
// module's translated code, its tracepoint query modules) build with this kernel's kbuild, where
// the fix cannot be a runtime change: e.g. "KCFLAGS=-Wno-missing-prototypes ...". Empty for a
// kernel whose kbuild 4.8 knows (6.1).
std::vector<std::string> kbuild_variables(const KernelHeaders& headers);

// Whether `change` applies to the kernel with these headers.
bool change_applies(const RuntimeChange& change, const KernelHeaders& headers);

// Copies `system_runtime` to `dest` (which must not exist) with the changes that apply, and
// writes dest/iotap-compat.txt naming them. Returns their names. Throws UserError naming
// the change and file when a replacement's text is missing from the system's runtime.
std::vector<std::string> adapt_runtime(
    const std::string& system_runtime, const KernelHeaders& headers, const std::string& dest,
    const std::vector<RuntimeChange>& changes = runtime_changes());

// The runtime to compile modules for `release` with: the system's adapted to that kernel's
// headers, at its shared per-content path (shared_runtime.h), made on first use. "" when the
// release has no headers installed here (stap will say what it lacks) or SystemTap's runtime is
// missing.
std::string adapted_runtime_dir(const std::string& release);

// Everything a compile for `release` takes from the adaptation, from one reading of its headers:
// the runtime (`stap -R`), the kbuild variables (`stap -B`), and SystemTap's tapsets adapted to it
// for stap's SYSTEMTAP_TAPSET, shared by content like the runtime ("" when no tapset change
// applies: stap reads its own, as for 6.1).
struct KernelAdaptation {
  std::string runtime_dir;
  std::vector<std::string> kbuild_variables;
  std::string tapset_dir;
};
KernelAdaptation adapt_for_kernel(const std::string& release);

}  // namespace iotap::stap
