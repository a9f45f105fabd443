// iotap: find the verb, hand it its arguments, turn errors into one line and an exit status.
#include <poll.h>
#include <unistd.h>

#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/config.h"
#include "iotap/guest/guest_kernels.h"
#include "iotap/runner/kernel_debuginfo.h"
#include "iotap/session/fleet_run.h"
#include "iotap/session/target_options.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/util/leftovers.h"
#include "iotap/util/stop_signal.h"
#include "iotap/verbs/verbs.h"

namespace {

void print_usage(std::FILE* out) {
  std::fputs(
      "usage: iotap VERB [OPTIONS]\n"
      "\n"
      "Follows a program's reads from its USDT probes down through the block layer, md and\n"
      "device-mapper to the member disk that served them.\n"
      "\n"
      "verbs:\n",
      out);
  for (const auto& verb : iotap::verbs::all()) {
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(verb.name.size()), verb.name.data(),
                 static_cast<int>(verb.summary.size()), verb.summary.data());
  }
  std::fputs("\n'iotap VERB --help' shows a verb's options and examples.\n", out);
  std::fprintf(out, "\n%s", iotap::exit_status::help_text(iotap::exit_status::Verb::kAll).c_str());
}

// The version, then what this binary runs with: a wrong tapset or guest kernel is the first
// thing to rule out when a run misbehaves.
void print_version() {
  const iotap::DataPaths& paths = iotap::data_paths();
  // The kernel a --target vm run boots: the build's, or $IOTAP_GUEST_KERNEL's.
  std::string kernel = iotap::config::kGuestKernel;
  std::string kernel_problem;
  try {
    kernel = iotap::guest::resolve_guest_kernel("");
  } catch (const iotap::UserError& error) {
    kernel_problem = error.what();
  }
  std::printf("iotap " IOTAP_VERSION " (%s)\n", paths.installed ? "installed" : "build tree");
  if (!kernel_problem.empty()) std::printf("IOTAP_GUEST_KERNEL: %s\n", kernel_problem.c_str());
  std::printf("tapsets:      %s\n", paths.tapsets.c_str());
  std::printf("examples:     %s\n", paths.examples.c_str());
  std::printf("guest init:   %s\n", paths.guest_init.c_str());
  std::printf("cache:        %s\n", paths.cache.c_str());
  std::printf("guest kernel: %s\n", kernel.empty()
                                        ? "none (configured without one: --target vm cannot run)"
                                        : kernel.c_str());
  if (kernel.empty()) return;
  // kernel.function(), module().function(), $vars and @cast in the guest need it.
  const std::string& release = kernel;
  const auto debuginfo = iotap::runner::find_kernel_debuginfo(release);
  std::printf("debuginfo:    %s\n",
              debuginfo ? debuginfo->vmlinux.c_str()
                        : ("not installed (kernel.function probes, $vars and @cast cannot "
                           "compile for the guest): " +
                           iotap::runner::debuginfo_install_hint(release))
                              .c_str());
  // What --guest-kernel can name here.
  for (const iotap::guest::InstalledKernel& installed : iotap::guest::installed_kernels()) {
    std::string missing;
    for (const std::string& package : installed.missing_packages())
      missing += (missing.empty() ? "" : " ") + package;
    std::printf("kernel:       %s: %s%s\n", installed.release.c_str(),
                installed.ready() ? "ready" : "not ready",
                missing.empty() ? "" : (", install " + missing).c_str());
  }
}

int run_verb(std::vector<std::string> args);

// What iotap printed on stdout must have reached it: a full disk or a closed stdout loses the
// report, and the exit status says so (2, as for any file iotap cannot write), with one line on
// stderr. A status that is already not 0 is kept: it says more.
int with_stdout_checked(int status) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && std::ferror(stdout) == 0) return status;
  // Its reader went away (`iotap probes X | head -1`): as a pipeline's writer killed by SIGPIPE.
  // errno may no longer say so by now (the write that failed was earlier): a pipe whose reader
  // has gone polls POLLERR.
  pollfd out{.fd = STDOUT_FILENO, .events = 0, .revents = 0};
  if (error == EPIPE || (::poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0))
    return status == 0 ? 128 + SIGPIPE : status;
  std::fprintf(stderr, "iotap: cannot write the report to stdout: %s\n",
               flushed || error == 0 ? "a write failed" : std::strerror(error));
  return status == 0 ? iotap::exit_status::kUsage : status;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything can start a child: a stop signal from here on ends every child and removes
  // every temp dir (util/stop_signal.h).
  iotap::install_stop_handlers();
  return with_stdout_checked(run_verb(std::vector<std::string>(argv + 1, argv + argc)));
}

namespace {

int run_verb(std::vector<std::string> args) {
  if (args.empty()) {
    print_usage(stderr);
    return 2;
  }
  // `iotap help VERB` is `iotap VERB --help`; an unknown VERB is then the unknown-verb error.
  if (args[0] == "help" && args.size() > 1 && args[1] != "help") args = {args[1], "--help"};
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    print_usage(stdout);
    return 0;
  }
  if (args[0] == "--version" || args[0] == "-V") {
    print_version();
    return 0;
  }
  for (const auto& verb : iotap::verbs::all()) {
    if (verb.name != args[0]) continue;
    try {
      iotap::remove_leftovers_and_say();
      const auto verb_args = std::span(args).subspan(1);
      // Several --target ssh:// hosts: the verb runs on each (session/fleet_run.h).
      // The doctor checks several hosts itself.
      if (const auto hosts = iotap::session::ssh_targets_in(verb_args);
          hosts.size() > 1 && verb.name != "doctor")
        return iotap::session::run_fleet(verb.name, verb_args, hosts);
      return verb.main(verb_args);
    } catch (const iotap::Stopped& e) {
      std::fprintf(stderr, "iotap: %s\n", e.what());
      return e.exit_status();
    } catch (const iotap::FinishedEarly& e) {
      std::fprintf(stderr, "iotap: %s\n", e.what());
      return 0;
    } catch (const iotap::UserError& e) {
      std::fprintf(stderr, "iotap: %s\n", e.what());
      return 2;
    } catch (const iotap::TargetLost& e) {
      std::fprintf(stderr, "iotap: %s\n", e.what());
      return iotap::exit_status::kTargetLost;
    } catch (const boost::program_options::error& e) {
      std::fprintf(stderr, "iotap %s: %s (see 'iotap %s --help')\n", args[0].c_str(), e.what(),
                   args[0].c_str());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "iotap: internal error: %s\n", e.what());
      return 70;
    }
  }
  std::fprintf(stderr, "iotap: unknown verb '%s' (see 'iotap --help')\n", args[0].c_str());
  return 2;
}

}  // namespace
