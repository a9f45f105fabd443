#pragma once
// iotap's own exit statuses. Besides these, a tracing verb exits with the -c program's status
// when the program failed (as a shell reports it: 128 + N when killed by signal N).
#include <string>

namespace iotap::exit_status {

// doctor: no target it was asked about can trace on this machine; its checks say what is missing.
inline constexpr int kNotReady = 1;
inline constexpr int kUsage = 2;  // bad input: a one-line "iotap: ..." says what to change
// attribute/diagnose: the run ended but gave nothing to answer from (no I/O seen, or not the
// kind the verb needs: engine::VerdictStatus); the report says what was missing and why.
inline constexpr int kNothingAttributed = 3;
// The target went away mid-run: --target vm's guest (qemu killed, the guest's kernel panicked)
// or a --target ssh:// host; with many hosts, at least one host's run did not finish (the fleet
// summary names each and why).
inline constexpr int kTargetLost = 4;
inline constexpr int kInternal = 70;      // a bug in iotap (EX_SOFTWARE)
inline constexpr int kInterrupted = 130;  // SIGINT (Ctrl-C)
inline constexpr int kTerminated = 143;   // SIGTERM

// Which statuses a verb can exit with, for its --help.
enum class Verb { kPlain, kTracing, kAttribution, kDoctor, kAll };

// The "exit status:" block that ends a verb's --help (kAll: `iotap --help`).
inline std::string help_text(Verb verb) {
  const bool tracing = verb != Verb::kPlain && verb != Verb::kDoctor;
  std::string text = "exit status:\n  0    success";
  text += tracing ? ": the run finished (and the -c program exited 0)\n" : "\n";
  if (tracing)
    text +=
        "  N    the -c program's own non-zero status, passed on (128+S when signal S killed it);\n"
        "       or, when the program did not fail, staprun's own non-zero status (see its "
        "message)\n";
  if (verb == Verb::kDoctor || verb == Verb::kAll)
    text +=
        "  1    doctor: no target it was asked about can trace on this machine (its \"missing\"\n"
        "       lines say what to fix)\n";
  text +=
      "  2    bad input (options, --stack, -c, files): a one-line message; nothing was run\n"
      "       (also when the report cannot be written: a full disk, stdout closed)\n";
  if (verb == Verb::kAttribution || verb == Verb::kAll)
    text +=
        "  3    attribute, diagnose: nothing to attribute: no I/O seen, or not the kind the verb\n"
        "       needs; the verdict says what was missing, with the program's exit status and its\n"
        "       last line on stderr (JSON: verdict.status, verdict.reason, program)\n";
  if (tracing)
    text +=
        "  4    the target went away mid-run: the guest stopped (qemu killed, its kernel\n"
        "       panicked) or the connection to the --target ssh:// host was lost; with several\n"
        "       --target ssh:// hosts, at least one host's run failed (the fleet summary says "
        "why)\n";
  text += "  70   internal error in iotap\n";
  if (tracing)
    text +=
        "  130  interrupted (SIGINT, Ctrl-C)\n  141  the reader of its output went away (a pipe "
        "closed: | head)\n  143  terminated (SIGTERM)\n";
  return text;
}

}  // namespace iotap::exit_status
