#include "iotap/session/target_options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <filesystem>

#include "iotap/config.h"
#include "iotap/guest/guest_kernels.h"
#include "iotap/local/local_runner.h"
#include "iotap/session/output_file.h"
#include "iotap/session/postgres_options.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/printable.h"
#include "iotap/util/process.h"
#include "iotap/util/shell_words.h"

namespace iotap::session {

namespace po = boost::program_options;

void add_target_options(po::options_description& description, TargetOptions& options,
                        const std::string& default_target) {
  description.add_options()(
      "command,c", po::value(&options.command_line)->value_name("CMD"),
      "start CMD under the probes (with --target vm: the project's workloads by bare name, "
      "__DEV__ for the stack's top device; with --target ssh://: the program at the same path "
      "on the host); words are cut as sh quotes them, with no $, glob or redirection "
      "expansion)")(
      "pid,x",
      positive_number(kPidOption, [&](uint64_t pid) { options.pid = static_cast<pid_t>(pid); })
          ->value_name("PID"),
      "attach to the running process PID (--target local, or ssh:// with a pid on that host; "
      "the run ends when the process does)")("output,o",
                                             po::value(&options.output_path)->value_name("FILE"),
                                             "write the script's output to FILE")(
      "json", po::bool_switch(&options.json), "print one JSON object on stdout instead of text")(
      "target",
      po::value<std::string>()
          ->value_name("local|vm|ssh://[USER@]HOST[:PORT]")
          ->default_value(default_target)
          ->notifier([&](const std::string& t) {
            if (t == "local") {
              options.target = Target::kLocal;
            } else if (t == "vm") {
              options.target = Target::kVm;
            } else if (t.starts_with("ssh://")) {
              options.target = Target::kSsh;
              options.ssh_host = remote::parse_ssh_target(t);
            } else {
              throw UserError(
                  "--target must be 'local' (this kernel), 'vm' (a qemu guest iotap boots) or "
                  "ssh://[USER@]HOST[:PORT] (a machine iotap reaches with ssh), not '" +
                  t + "'");
            }
          }),
      "where the probes run: this kernel, a throwaway qemu guest with a known kernel, or a "
      "machine reached with ssh (compiled here for its kernel, run there with staprun; give "
      "several --target ssh:// to run on each at once, with a fleet summary)")(
      "stack", po::value(&options.stack_text)->value_name("SPEC"),
      "with --target vm: the md/dm stack to build, e.g. 'raid0(ram*7, delay(ram, 50ms))'")(
      "guest-kernel", po::value(&options.guest_kernel)->value_name("RELEASE"),
      "with --target vm: the installed kernel the guest boots, as a release "
      "(6.12.117+deb12-cloud-amd64) or the start of one (6.12); default: $IOTAP_GUEST_KERNEL, else "
      "the one this iotap was built for (iotap --version and iotap doctor list the kernels ready "
      "here)")(
      "timeout",
      positive_number(
          kTimeoutOption,
          [&](uint64_t seconds) { options.timeout_seconds = static_cast<unsigned>(seconds); })
          ->value_name("SECONDS"),
      "stop the run SECONDS after it starts (with --target vm: after the guest starts, boot and "
      "stack included), as Ctrl-C would (end probes still report)")(
      "memory",
      positive_number(kMemoryOption,
                      [&](uint64_t mib) { options.memory_mib = static_cast<unsigned>(mib); })
          ->value_name("MIB")
          ->default_value(std::to_string(options.memory_mib)),
      "with --target vm: guest memory")(
      "save-module", po::value(&options.save_module_path)->value_name("FILE"),
      "compile only: write the module to FILE (for --for-kernel RELEASE, default this machine's), "
      "for "
      "a machine that has staprun and iotap but no compiler to run with --module FILE and the "
      "same options")("for-kernel", po::value(&options.save_for_kernel)->value_name("RELEASE"),
                      "with --save-module: the kernel release to compile for (uname -r there; "
                      "its headers must be on this machine)")(
      "module", po::value(&options.module_path)->value_name("FILE"),
      "with --target local: run FILE, made by --save-module with the same options, instead of "
      "compiling (this machine then needs staprun, not stap or its kernel's headers)");
  add_postgres_options(description, options);
}

namespace {

void check_not_both_c_and_x(const TargetOptions& options) {
  if (!options.command_line.empty() && options.pid)
    throw UserError("-c and -x exclude each other: start a program or attach to one");
}

}  // namespace

void require_one_program(const TargetOptions& options, std::string_view purpose,
                         std::string_view hint) {
  if (options.command_line.empty() && !options.pid) {
    throw UserError("give the program " + std::string(purpose) +
                    ": -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct' or -x PID" +
                    std::string(hint));
  }
  check_not_both_c_and_x(options);
}

bool attaches_to_provider_program(const TargetOptions& options, std::string_view requests) {
  if (!options.command_line.empty() || options.pid || !requests.starts_with("usdt:")) return false;
  if (options.target == Target::kVm)
    throw UserError(
        "--requests " + std::string(requests) +
        " without -c or -x attaches to the processes already running the provider's program, "
        "but a guest iotap boots runs none: use --target local or ssh://HOST, or start the "
        "server in the guest with --postgres -c 'psql ...'");
  if (options.postgres.start)
    throw UserError(
        "--postgres starts a server in a guest for a -c command: add -c 'psql -c ...', or leave "
        "--postgres out to attach to the server already running (--target local or ssh://)");
  return true;
}

std::string target_kernel_release(const TargetOptions& options) {
  switch (options.target) {
    case Target::kVm:
      return guest_kernel_release(options);
    case Target::kSsh:
      return host_facts(options).release;
    case Target::kLocal:
      break;
  }
  if (!options.save_for_kernel.empty()) return options.save_for_kernel;
  return local::local_kernel_release();
}

std::string target_text(const TargetOptions& options) {
  switch (options.target) {
    case Target::kVm:
      return "vm";
    case Target::kSsh:
      return options.ssh_host->text;
    case Target::kLocal:
      break;
  }
  return "local";
}

const remote::HostFacts& host_facts(const TargetOptions& options) {
  std::optional<std::string> program;
  if (!options.command_line.empty()) {
    program = resolve_command(options.command_line, std::nullopt).program;
  } else if (!options.attached_program.empty()) {
    program = options.attached_program;
  }
  // Asked again only when the program it was asked about is not this one (facts asked before the
  // attached program was known).
  if (!*options.ssh_facts || (*options.ssh_facts)->asked_program != program.value_or(""))
    *options.ssh_facts = remote::probe_host(*options.ssh_host, options.pid, program);
  return **options.ssh_facts;
}

std::vector<std::string> ssh_targets_in(std::span<const std::string> args) {
  std::vector<std::string> hosts;
  for (size_t i = 0; i < args.size(); ++i) {
    // --target as boost takes it: whole or abbreviated to at least --targ, "=VALUE" or not.
    const std::string& arg = args[i];
    const size_t equals = arg.find('=');
    const std::string_view word = std::string_view(arg).substr(0, equals);
    std::string value;
    if (arg == "--") break;
    if (word.size() >= 6 && std::string_view("--target").starts_with(word)) {
      if (equals != std::string::npos) {
        value = arg.substr(equals + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      }
    }
    if (value.starts_with("ssh://")) hosts.push_back(value);
  }
  return hosts;
}

namespace {

// A kernel release as uname -r prints it, and as it names /lib/modules/RELEASE: one path
// component ('../../../../tmp' was taken as one).
bool is_kernel_release(std::string_view text) {
  return !text.empty() && std::isalnum(static_cast<unsigned char>(text[0])) != 0 &&
         std::ranges::all_of(text, [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                  std::string_view("._+-").find(c) != std::string_view::npos;
         });
}

// --module and --save-module: the two halves of a compile here, run there without ssh.
void check_module_options(const TargetOptions& options) {
  if (!options.module_path.empty() && !options.save_module_path.empty())
    throw UserError("--module runs a saved module and --save-module saves one: give one of them");
  if (!options.save_for_kernel.empty() && options.save_module_path.empty())
    throw UserError(
        "--for-kernel names the kernel --save-module compiles for: add --save-module FILE");
  if (!options.module_path.empty() && options.target != Target::kLocal)
    throw UserError(
        "--module runs a saved module on this machine's kernel: it goes with --target local (a "
        "vm or ssh:// target's module is compiled for it on each run)");
  if (!options.save_module_path.empty() && options.target != Target::kLocal)
    throw UserError(
        "--save-module compiles for the kernel --for-kernel names, to run elsewhere: it goes with "
        "--target local (a vm or ssh:// target's module is compiled for it on each run)");
  if (!options.save_module_path.empty() && options.pid)
    throw UserError(
        "-x attaches to a process on this machine, but --save-module makes a module for another "
        "one: save it with -c and the program's path, and give -x PID where it runs");
  if (!options.save_for_kernel.empty() && !is_kernel_release(options.save_for_kernel))
    throw UserError("--for-kernel '" + escaped(options.save_for_kernel) +
                    "' is not a kernel release: give it as uname -r prints it there (letters, "
                    "digits and ._+-, e.g. 6.1.0-56-cloud-amd64)");
  // Before the compile, not after it (a directory was refused 5.6 s in).
  if (!options.save_module_path.empty())
    check_replaceable_file(options.save_module_path, "--save-module");
}

}  // namespace

void check_target_options(const TargetOptions& options) {
  check_not_both_c_and_x(options);
  check_module_options(options);
  if (!options.save_module_path.empty() && !options.stack_text.empty()) {
    throw UserError(
        "--stack builds md/dm devices in a guest, but --save-module makes a module for a machine "
        "that has its own: leave --stack out (the module traces the devices it finds there)");
  }
  if (options.target == Target::kLocal && !options.stack_text.empty()) {
    throw UserError(
        "--stack builds md/dm devices in a guest: add --target vm (on a local kernel, trace the "
        "devices you have)");
  }
  if (options.target == Target::kSsh && !options.stack_text.empty()) {
    throw UserError(
        "--stack builds md/dm devices in a guest: a --target ssh:// host is traced with the "
        "devices it has (iotap reads its stacks from sysfs there)");
  }
  if (options.target == Target::kVm && options.pid) {
    throw UserError(
        "-x attaches to a process on this host, but --target vm traces inside a guest: use -c CMD");
  }
  if (!options.guest_kernel.empty()) {
    if (options.target != Target::kVm)
      throw UserError("--guest-kernel chooses the kernel a --target vm guest boots; a " +
                      target_text(options) +
                      " run traces the kernel that machine runs: add --target vm or leave "
                      "--guest-kernel out");
    guest_kernel_release(options);  // refused now, before anything compiles or boots
  }
  check_postgres_options(options);
}

std::string guest_kernel_release(const TargetOptions& options) {
  return guest::resolve_guest_kernel(options.guest_kernel);
}

void check_guest_device(const TargetOptions& options, const std::string& device,
                        std::string_view option) {
  if (options.target != Target::kVm || device.empty()) return;
  const std::optional<stack_spec::StackPlan> plan = plan_target_stack(options);
  if (!plan)
    throw UserError(std::string(option) + " " + escaped(device) +
                    ": a guest has no devices but the ones --stack builds: add --stack SPEC");
  std::string paths;
  for (const auto& planned : plan->devices) {
    if (planned.path == device) return;
    if (planned.id < 8) paths += (paths.empty() ? "" : ", ") + planned.path;
  }
  if (plan->devices.size() > 8) paths += ", ...";
  throw UserError(std::string(option) + " " + escaped(device) +
                  " is not a device of --stack in the guest: leave it out for the top (" +
                  plan->top_path() + "), or name one of " + paths);
}

std::optional<stack_spec::StackPlan> plan_target_stack(const TargetOptions& options) {
  if (options.target != Target::kVm || options.stack_text.empty()) return std::nullopt;
  stack_spec::StackPlan plan =
      stack_spec::plan_stack(stack_spec::parse_stack_spec(options.stack_text));
  stack_spec::check_fits_in_memory(plan, options.memory_mib);
  return plan;
}

ResolvedCommand resolve_command(const std::string& command_line,
                                const std::optional<stack_spec::StackPlan>& stack,
                                const std::string& program_dir) {
  std::vector<std::string> words;
  try {
    words = split_shell_words(command_line);
  } catch (const UserError& e) {
    throw UserError(std::string("-c: ") + e.what());
  }
  if (words.empty())
    throw UserError(
        "-c is empty: give the program to run, e.g. -c 'block_hasher -d __DEV__ -b 1048576 -t 8'");
  for (auto& word : words) {
    for (size_t at = word.find("__DEV__"); at != std::string::npos; at = word.find("__DEV__", at)) {
      if (!stack)
        throw UserError(
            "-c uses __DEV__, which stands for the top device of --stack: add --target vm --stack "
            "SPEC");
      word.replace(at, 7, stack->top_path());
      at += stack->top_path().size();
    }
  }
  ResolvedCommand resolved;
  const std::string& name = words[0];
  if (name.find('/') != std::string::npos) {
    if (!is_executable_file(name)) throw UserError("-c: '" + name + "' is not an executable file");
    resolved.program = std::filesystem::absolute(name).lexically_normal().string();
  } else {
    const std::string workload = data_paths().workloads + "/" + name + "/" + name;
    if (!program_dir.empty() && is_executable_file(program_dir + "/" + name)) {
      resolved.program = program_dir + "/" + name;
    } else {
      resolved.program = is_executable_file(workload) ? workload : find_in_path(name);
    }
    if (resolved.program.empty()) {
      throw UserError("-c: program '" + name +
                      "' not found (bare names are the project's workloads, such as block_hasher, "
                      "or programs in PATH)");
    }
  }
  words[0] = resolved.program;
  for (size_t i = 1; i < words.size(); ++i) {
    std::error_code error;
    if (words[i].empty() || !std::filesystem::is_regular_file(words[i], error)) continue;
    const std::string path = std::filesystem::absolute(words[i]).lexically_normal().string();
    // The kernel's files are the guest's own there.
    if (path.starts_with("/proc/") || path.starts_with("/sys/") || path.starts_with("/dev/"))
      continue;
    words[i] = path;
    resolved.files.push_back(path);
  }
  resolved.argv = std::move(words);
  return resolved;
}

}  // namespace iotap::session
