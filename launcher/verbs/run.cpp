// iotap run SCRIPT.stp [ARG...]: compile a SystemTap script with the bundled tapsets and run it.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>

#include "iotap/records_as_text.h"
#include "iotap/report/overhead.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/session/postgres_options.h"
#include "iotap/session/stap_pass_options.h"
#include "iotap/session/traced_run.h"
#include "iotap/stack/stack_json.h"
#include "iotap/stap/script.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::add_stap_pass_options;
using session::add_target_options;
using session::OutputFile;
using session::parse_options;
using session::stderr_status_printer;
using session::target_text;
using session::TargetOptions;
using session::traced_run;
using session::TracedRunResult;
using session::TracedRunSinks;
using session::TracedScript;

namespace po = boost::program_options;

namespace {

constexpr const char* kRunHelp =
    R"(usage: iotap run SCRIPT.stp [ARG...] [-c CMD | -x PID] [--target local|vm|ssh://HOST...] [--stack SPEC] [options]

Compiles SCRIPT.stp with the bundled tapsets (tapsets/: block_hasher.*, blockio.*) and runs it,
streaming what it prints. The words after SCRIPT.stp are the script's arguments, $1/@1, $2/@2,
... as with stap; options may come between them, and after '--' every word is an argument
(iotap run my.stp -- -x passes -x to the script). In the script, __EXE__ stands for the traced
program's path (from -c, or /proc/PID/exe with -x) and __PID__ for -x's pid, as in SPDK's
bpftrace.sh: in code and in strings, not in comments (# // /* */), which keep them as written.
stap's messages name SCRIPT.stp with its own line numbers.

With --target vm, iotap boots a throwaway qemu guest with a kernel that can load SystemTap
modules, builds --stack in it with mdadm and dmsetup, and runs -c there; use this where the
local kernel cannot load modules (containers, CI, a laptop without kernel headers).

Kernel addresses in what the script prints (backtrace()'s 0xffff... words) are named on the host,
as function+offset [module], from the target's own /proc/kallsyms (read in the guest during the
same boot, so KASLR and modules are right). This happens when the script calls backtrace();
--raw-addresses keeps the numbers.

When the run ends, iotap says what the probes cost it, on stderr:
  iotap: overhead: 106 probe hits, 0 skipped, ~0.00 s (0% of the run at 9 us per hit)
The script is compiled with stap's -t for that; the module's probe hit report, which -t adds to
the output at its exit, is taken out and summed. The time is the hits times the cost of one hit
measured for the target (the TCG guest's, for events.stp, bench/overhead); it is not said where
that cost is not measured. The run is the module's, from its load to staprun's exit. With
--json the same is "overhead": {probe_hits, skipped_probes, ns_per_hit, seconds, share}.

Ctrl-C stops the run: once the script runs, its end probes still run and their output still
arrives; before that (compile, boot, stack building) iotap stops at once and prints nothing.
iotap exits with the -c program's exit status (128 + the signal when stopped: 130 after
Ctrl-C, 143 after SIGTERM). --timeout counts from the end of the compile (the guest boots
meanwhile), boot and stack included; without it, a guest that has not started the run 300 s
after that is taken for hung.

stap's options: -D, -G, -g, -d, -v, -T, --all-modules and --suppress-time-limits are passed on
(-G when staprun loads the module, -v to staprun too). -c, -x and -o mean what they mean to stap.
With --target vm, -d MODULE (a name, e.g. -d raid0) is the guest kernel's module, whose file
iotap gives stap (the -dbg package's copy, with its unwind data, when installed), and
--all-modules means the kernel and the modules the guest has loaded (its own and the stack's
md and dm modules), not this machine's. Refused, because iotap sets them: -p, -m, -r, -R, -I, --runtime (a
kernel module; bpf does not run in the guest); -e (a script file only), -l/-L (they list probe
points and run nothing), -F and -b (iotap streams one output).

Your script compiles as stap compiles it, with stap's limits (MAXACTION ...), and with -t (above).
iotap's own examples (examples/*.stp) run as its verbs do, with interrupts off in handlers (-D
INTERRUPTIBLE=0, which -D INTERRUPTIBLE=1 replaces): with them on, a probe hit from an interrupt
while another handler runs on its CPU is dropped and counted nowhere. Your script may ask for
the same with -D INTERRUPTIBLE=0; stap 4.8 then gives begin, end, init and tracepoint handlers
MAXACTION (1000 statements) instead of 10000 (syscall_any's init alone runs 1660).

examples:
  iotap run examples/iotime.stp --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap run my.stp -x 1234                 # attach to a running process, this kernel
  iotap run my.stp vda 5 -G max_lines=3 -D MAXACTION=100000 --target vm -c /bin/true   # $1/@1 is vda
  iotap run my.stp --target vm --stack 'raid1(ram, delay(ram, 20ms))' -c 'block_hasher -d __DEV__ -b 65536 -t 4'

--stack SPEC grammar: raid0, raid1, raid10, raid5 (md); linear, delay, flakey, error, striped,
  crypt (dm); ram, virtio, null (disks)
  raid0(ram*7, delay(ram, 50ms))   raid0(chunk=64k, ram:128M*4)   linear(raid0(ram*4))
  raid0(ram*3, flakey(ram, up=1s, down=1s))   raid0(ram*3, error(ram))
  raid10(ram*4)   raid5(ram*3, missing)   striped(chunk=64k, ram*4)   crypt(ram)
  raid0(ram*3, null(lat=5ms))   null:1G(lat=2ms)
  Sizes (ram:128M, virtio:1G, or size=) belong to disks: ram 64M and virtio 256M by default, all
  ram disks one size; null 64M, latency 0 unless lat= (whole MiB), no write cache unless
  cache=SIZE (then it takes flushes and FUA writes). Each option once. delay,
  flakey and crypt take 1 member, error 0 or 1, raid0, raid1, raid10 and striped at least 2,
  raid5 at least 3 (one may be 'missing': a degraded array), linear at least 1. chunk= applies
  to raid0, raid10, raid5 and striped (striped: 64k by default). A spec is ASCII.
  Limits: 16 levels deep; 256 devices in all (disks, arrays and dm targets, each copy of X*N
  counted; N at most 64); 26 virtio disks (vda..vdz). Ram disks live in guest memory: their
  total plus 256 MiB for the guest itself must fit in --memory.
  --timeout, --memory, -x take positive whole numbers.

options)";

bool prints_backtraces(const std::string& script_text) {
  return script_text.find("backtrace(") != std::string::npos;
}

}  // namespace

int run(Args args) {
  TargetOptions options;
  std::string script;
  bool raw_addresses = false;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "raw-addresses", po::bool_switch(&raw_addresses),
      "leave kernel addresses in the output as numbers");
  add_target_options(visible, options, "local");
  po::options_description hidden;
  TracedScript traced;
  traced.report_overhead = true;
  add_stap_pass_options(visible, hidden, traced.stap_options);
  hidden.add_options()("script", po::value(&script))("script-args",
                                                     po::value(&traced.args)->composing());
  po::positional_options_description positional;
  positional.add("script", 1).add("script-args", -1);
  if (!parse_options(args, visible, kRunHelp, &hidden, &positional)) return 0;
  stap::check_stap_options(traced.stap_options);
  if (script.empty())
    throw UserError(
        "iotap run needs a script: iotap run SCRIPT.stp [-c CMD] (see 'iotap run --help')");
  // Missing, empty, a directory, a FIFO: refused before any work.
  const std::string script_text = stap::read_script(script);

  OutputFile out(options.output_path);
  std::string captured;
  TracedRunSinks sinks;
  sinks.status = stderr_status_printer();
  const auto write_output = [&](std::string_view bytes) {
    if (options.json) {
      captured += bytes;
    } else {
      out.write(bytes);
    }
  };
  traced.path = script;
  // A user's script gets stap's own interrupts and budgets; iotap's examples, its verbs' way.
  traced.interrupts_off = stap::is_bundled_example(script, data_paths().examples);
  traced.program_stdout_in_stream = true;
  traced.kernel_symbols = !raw_addresses && prints_backtraces(script_text);
  // Addresses are named a whole line at a time: a read can end in the middle of one.
  std::shared_ptr<const symbols::KernelSymbols> names;
  std::string partial_line;
  sinks.kernel_symbols = [&](std::shared_ptr<const symbols::KernelSymbols> table) {
    names = std::move(table);
  };
  // iotap's event scripts write binary records (docs/event-format.md): shown as their lines.
  engine::RecordsAsText as_text([&](std::string_view bytes) {
    if (!names) return write_output(bytes);
    partial_line += bytes;
    const size_t end = partial_line.rfind('\n');
    if (end == std::string::npos) return;
    write_output(names->symbolize_text(std::string_view(partial_line).substr(0, end + 1)));
    partial_line.erase(0, end + 1);
  });
  sinks.output = [&](std::string_view bytes) { as_text.feed(bytes); };
  const TracedRunResult result = traced_run(traced, options, sinks);
  as_text.finish();
  if (!partial_line.empty()) write_output(names->symbolize_text(partial_line));
  // -o names a file even when the script printed nothing: the run finished, its report is empty.
  if (!options.json) out.write("");

  if (options.json) {
    const Json json{{"schema", "iotap.run/1"},
                    {"script", script},
                    {"target", target_text(options)},
                    {"kernel", result.kernel_release},
                    {"devices", stack_json(result.devices)},
                    {"exit_status", result.exit_status},
                    {"target_exit_status",
                     result.target_exit_status ? Json(*result.target_exit_status) : Json(nullptr)},
                    {"interrupted", result.interrupted},
                    {"timed_out", result.timed_out},
                    {"overhead", report::overhead_json(result.overhead)},
                    {"postgres", session::postgres_stats_json(result.postgres)},
                    {"output", captured}};
    out.write(to_text(json));
  }
  return result.exit_status;
}

}  // namespace iotap::verbs
