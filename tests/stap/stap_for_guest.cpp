// `stap_for_guest [--kernel-symbols] ARGS...` runs `stap -r KERNEL -R RUNTIME ARGS...` (the stap
// CMake found) with what iotap itself gives stap for a guest: the guest kernel or its tree
// (runner/kernel_tree.h; --kernel-symbols: a script that needs the kernel's symbol table) and
// the adapted runtime (stap/shared_runtime.h). stap keys its cache by those paths, so the stap
// tier's compiles and iotap's share one cache: the kernel's configuration probe and the
// tracepoint queries are made once, not once per tier.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
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
  const bool kernel_symbols = argc > 1 && std::string_view(argv[1]) == "--kernel-symbols";
  if (kernel_symbols) ++first;
  const std::string kernel = iotap::runner::guest_compile_kernel(
      iotap::config::kGuestKernel, kernel_symbols, kallsyms_not_read,
      iotap::runner::guest_kernel_trees_dir());
  std::vector<std::string> words{STAP_EXECUTABLE, "-r", kernel, "-R",
                                 iotap::stap::guest_runtime_dir()};
  for (int i = first; i < argc; ++i) words.emplace_back(argv[i]);
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
