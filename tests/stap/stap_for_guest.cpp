// `stap_for_guest [--guest-kernel RELEASE] [--kernel-symbols] ARGS...` runs `stap -r KERNEL -R
// RUNTIME [-B VAR]... ARGS...` (the stap CMake found) with what iotap itself gives stap for a
// guest: the guest kernel (the default one, or RELEASE) or its tree (runner/kernel_tree.h;
// --kernel-symbols: a script that needs the kernel's symbol table), the runtime adapted to it
// and its kbuild variables (stap/runtime_adaptation.h). stap keys its cache by those paths, so the
// stap tier's compiles and iotap's share one cache: the kernel's configuration probe and the
// tracepoint queries are made once, not once per tier.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/config.h"
#include "iotap/runner/kernel_tree.h"
#include "iotap/stap/runtime_adaptation.h"
#include "iotap/util/error.h"

namespace {

std::string kallsyms_not_read() {
  throw iotap::UserError(
      "the guest kernel's tree from its kallsyms is not made yet: the test stap_guest_kernel_tree "
      "makes it (ctest's fixture guest_kernel_tree)");
}

}  // namespace

int main(int argc, char** argv) try {
  int first = 1;
  bool kernel_symbols = false;
  std::string release = iotap::config::kGuestKernel;
  for (; first < argc; ++first) {
    const std::string_view word = argv[first];
    if (word == "--kernel-symbols") {
      kernel_symbols = true;
    } else if (word == "--guest-kernel" && first + 1 < argc) {
      release = argv[++first];
    } else {
      break;
    }
  }
  const std::string kernel = iotap::runner::guest_compile_kernel(
      release, kernel_symbols, kallsyms_not_read, iotap::runner::guest_kernel_trees_dir());
  const iotap::stap::KernelAdaptation adaptation = iotap::stap::adapt_for_kernel(release);
  if (adaptation.runtime_dir.empty())
    throw iotap::UserError("kernel " + release + " has no headers here (linux-headers-" + release +
                           ")");
  std::vector<std::string> words{STAP_EXECUTABLE, "-r", kernel, "-R", adaptation.runtime_dir};
  for (const std::string& variable : adaptation.kbuild_variables)
    words.insert(words.end(), {"-B", variable});
  for (int i = first; i < argc; ++i) words.emplace_back(argv[i]);
  if (!adaptation.tapset_dir.empty())
    ::setenv("SYSTEMTAP_TAPSET", adaptation.tapset_dir.c_str(), 1);
  std::vector<char*> stap_argv;
  stap_argv.reserve(words.size() + 1);
  for (auto& word : words) stap_argv.push_back(word.data());
  stap_argv.push_back(nullptr);
  ::execv(STAP_EXECUTABLE, stap_argv.data());
  std::fprintf(stderr, "stap_for_guest: cannot run %s: %s\n", STAP_EXECUTABLE,
               std::strerror(errno));
  return 127;
} catch (const std::exception& error) {
  std::fprintf(stderr, "stap_for_guest: %s\n", error.what());
  return 1;
}
