#include "run_files.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/quoting.h"

namespace iotap::guest {

namespace {

namespace fs = std::filesystem;

// A run.conf line the guest's shell sources and then splits at spaces. The words are checked
// options (stap/stap_options.h): anything else here is a bug, not something to quote.
std::string conf_words(const std::string& name, const std::vector<std::string>& words) {
  std::string line = name + "='";
  for (const auto& word : words) {
    const bool plain = !word.empty() && std::ranges::all_of(word, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("_.=-", c) != nullptr;
    });
    if (!plain) {
      std::string what = "run.conf: unchecked word '";
      what += word;
      what += "' in ";
      what += name;
      throw std::logic_error(what);
    }
    line += (&word == words.data() ? "" : " ") + word;
  }
  return line + "'\n";
}

// staprun's niceness in the guest, and the command's increment back to 0. By default both run
// at 0: stapio's readers above the program (nice -10, as before) kept up, but took the CPU from
// it, 4 KiB reads ran 2.9 times slower than at nice 0, and lost nothing more (bench/overhead,
// docs/performance.md); the end of the stream is stapio_drain.so's (init.sh says why).
// IOTAP_STAPRUN_NICE overrides it, for a test or a diagnosis that needs the readers starved or
// favoured (docs/event-format.md).
std::string reader_priority() {
  int staprun_nice = 0;
  if (const char* env = std::getenv("IOTAP_STAPRUN_NICE"); env != nullptr) {
    const std::string_view text(env);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), staprun_nice);
    if (error != std::errc() || end != text.data() + text.size() || staprun_nice < -20 ||
        staprun_nice > 19)
      throw UserError("IOTAP_STAPRUN_NICE='" + std::string(text) +
                      "' is not a niceness (a whole number from -20 to 19); unset it");
  }
  return "IOTAP_STAPRUN_NICE=" + std::to_string(staprun_nice) +
         "\nIOTAP_COMMAND_NICE=" + std::to_string(-staprun_nice) + "\n";
}

// guest/postgres.sh, next to the guest's init (installed or in the source tree).
std::string guest_postgres_script() {
  return (fs::path(data_paths().guest_init).parent_path() / "postgres.sh").string();
}

void write_run_files(InitramfsBuilder& image, const VmRun& run, const GuestKernel& kernel) {
  image.add_directory("/iotap");
  image.add_file("/iotap/iotap.ko", run.module_path.empty() ? "" : read_file(run.module_path));
  std::string modules;
  std::string stack_script;
  // The channel modules are loaded at boot (initramfs.h); the guest skips a module it has.
  std::vector<std::string> module_names;
  if (run.stack) module_names = run.stack->modules;
  if (!run.tools_image.empty()) module_names.emplace_back("virtio_blk");
  if (run.ssh_port != 0) module_names.emplace_back("virtio_net");
  {
    for (const auto& ko : kernel.module_load_order(module_names)) {
      modules += ko;
      // 6.12's modules are compressed (brd.ko.xz); busybox's insmod reads either.
      const std::string file = fs::path(ko).filename().string();
      const std::string name = file.substr(0, file.find(".ko"));
      if (name == "brd") {
        for (const auto& option : run.stack->brd_options) modules += " " + option;
      }
      if (name == "null_blk") {
        for (const auto& option : run.stack->null_blk_options) modules += " " + option;
      }
      modules += "\n";
    }
    if (run.stack) stack_script = run.stack->guest_script;
  }
  image.add_file("/iotap/modules", modules);
  image.add_file("/iotap/stack.sh", stack_script);
  image.add_file("/iotap/command", quoted_command(run.command));
  // Runs its arguments with stdout on stderr (see VmRun::program_stdout_to_stderr).
  image.add_file("/iotap/stdout-to-stderr", "#!/bin/sh\nexec \"$@\" >&2\n", 0755);
  if (run.postgres) {
    image.add_file("/iotap/postgres.sh", read_file(guest_postgres_script()));
    image.add_file("/iotap/postgres.conf", postgres_guest_conf(*run.postgres));
  }
  image.add_file(
      "/iotap/run.conf",
      conf_words("IOTAP_STAPRUN_OPTIONS", run.staprun_options) +
          conf_words("IOTAP_MODULE_OPTIONS", run.module_options) + "IOTAP_KALLSYMS=" +
          (run.kernel_symbols ? "1" : "0") + "\nIOTAP_PLAIN=" + (run.plain_command ? "1" : "0") +
          "\nIOTAP_PROGRAM_STDOUT=" + (run.program_stdout_to_stderr ? "stderr" : "stream") +
          "\nIOTAP_TOOLS=" + (run.tools_image.empty() ? "0" : "1") +
          "\nIOTAP_NET=" + (run.ssh_port != 0 ? "1" : "0") +
          "\nIOTAP_POSTGRES=" + (run.postgres ? "1" : "0") + "\n" + reader_priority());
  for (const auto& program : run.programs) image.add_program(program);
  for (const auto& file : run.files) image.add_host_path(file);
}

}  // namespace

std::string build_run_files(const VmRun& run, const GuestKernel& kernel, const BaseImage& base,
                            const TempDir& dir) {
  const std::string path = dir / "run.cpio";
  InitramfsBuilder image(path);
  image.leave_out(base.host_files);
  write_run_files(image, run, kernel);
  image.finish();
  return read_file(path);
}

}  // namespace iotap::guest
