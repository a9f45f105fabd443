#include "iotap/remote/ssh_target.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "agent_command.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/printable.h"
#include "iotap/util/process.h"
#include "iotap/util/quoting.h"
#include "iotap/util/sha256.h"

namespace iotap::remote {

namespace {

bool host_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
}

}  // namespace

std::string this_machine() {
  utsname uts{};
  ::uname(&uts);
  return uts.machine;
}

std::string ssh_command_hint(const SshHost& host, std::string_view program) {
  std::string hint(program);
  if (host.port != 0) hint += " -p " + std::to_string(host.port);
  hint += " " + (host.user.empty() ? host.host : host.user + "@" + host.host);
  return hint;
}

std::string SshHost::name() const {
  std::string text = user.empty() ? host : user + "@" + host;
  if (port != 0) text += ":" + std::to_string(port);
  return text;
}

SshHost parse_ssh_target(std::string_view text) {
  constexpr std::string_view kScheme = "ssh://";
  const auto bad = [&text](const std::string& why) {
    return UserError("--target '" + escaped(text) + "': " + why +
                     " (the form is ssh://[USER@]HOST[:PORT], e.g. ssh://root@db7 or "
                     "ssh://db7:2222)");
  };
  if (!text.starts_with(kScheme)) throw bad("not an ssh:// address");
  SshHost host;
  host.text = text;
  std::string_view rest = text.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) throw bad("a path after the host means nothing");
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    host.user = rest.substr(0, at);
    rest.remove_prefix(at + 1);
    if (host.user.empty()) throw bad("the user before '@' is empty");
    for (size_t i = 0; i < host.user.size(); ++i) {
      if (!host_name_char(host.user[i]))
        throw bad("the user name has a '" +
                  escaped(std::string_view(host.user).substr(i, character_bytes(host.user, i))) +
                  "'");
    }
  }
  std::string_view port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) throw bad("an IPv6 address without its ']'");
    host.host = rest.substr(1, close - 1);
    rest.remove_prefix(close + 1);
    if (rest.starts_with(':'))
      port = rest.substr(1);
    else if (!rest.empty())
      throw bad("'" + escaped(rest) + "' after the address");
    for (const char c : host.host) {
      if (std::isxdigit(static_cast<unsigned char>(c)) == 0 && c != ':' && c != '.')
        throw bad("'" + escaped(host.host) + "' is not an IPv6 address");
    }
  } else {
    const size_t colon = rest.find(':');
    host.host = rest.substr(0, colon);
    if (colon != std::string_view::npos) port = rest.substr(colon + 1);
    for (size_t i = 0; i < host.host.size(); ++i) {
      if (!host_name_char(host.host[i]))
        throw bad("the host name has a '" +
                  escaped(std::string_view(host.host).substr(i, character_bytes(host.host, i))) +
                  "'");
    }
  }
  if (host.host.empty()) throw bad("no host");
  if (host.host.starts_with('-')) throw bad("a host name cannot start with '-'");
  if (port.data() != nullptr) {
    unsigned value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
      throw bad("the port must be a number from 1 to 65535, not '" + escaped(port) + "'");
    host.port = static_cast<uint16_t>(value);
  }
  return host;
}

HostFacts parse_host_facts(std::string_view text) {
  HostFacts facts;
  std::string proc_modules;  // the lines of its /proc/modules that name iotap's
  for_each_line(text, [&facts, &proc_modules](std::string_view line) {
    if (!line.starts_with("fact ")) return;
    line.remove_prefix(5);
    const size_t space = line.find(' ');
    const std::string_view name = line.substr(0, space);
    std::string value(space == std::string_view::npos ? "" : line.substr(space + 1));
    if (value == "-") value.clear();
    if (name == "release")
      facts.release = value;
    else if (name == "machine")
      facts.machine = value;
    else if (name == "staprun")
      facts.staprun = value;
    else if (name == "privilege")
      facts.privilege = value;
    else if (name == "user")
      facts.user = value;
    else if (name == "pid_exe")
      facts.pid_exe = value;
    else if (name == "pid_exe_sha256")
      facts.pid_exe_sha256 = value;
    else if (name == "program_sha256")
      facts.program_sha256 = value;
    else if (name == "proc_module")
      proc_modules += value + "\n";
  });
  facts.run_modules = stap::loaded_run_modules(proc_modules);
  return facts;
}

std::string host_problem(const SshHost& host, const HostFacts& facts,
                         const std::string& this_machine) {
  const std::string name = host.name();
  if (facts.release.empty())
    return name + ": iotap's agent did not say the kernel release (is its shell a POSIX sh?)";
  if (facts.machine != this_machine)
    return name + " is " + facts.machine + " and this machine " + this_machine +
           ": iotap compiles the module here, for this machine's architecture only";
  if (facts.staprun.empty())
    return name + " has no staprun: install SystemTap's runtime there (apt-get install " +
           "systemtap-runtime; nothing else of SystemTap or iotap is needed on the host)";
  if (facts.privilege == "none")
    return name + ": " + facts.user +
           " cannot load SystemTap modules there: log in as root (ssh://root@...), add " +
           facts.user + " to the stapdev group, or allow it passwordless sudo";
  return "";
}

std::string kernel_headers_problem(const SshHost& host, const std::string& release,
                                   const std::string& modules_root) {
  std::error_code error;
  if (std::filesystem::exists(modules_root + "/" + release + "/build", error)) return "";
  return host.name() + " runs kernel " + release +
         ", whose headers this machine lacks: stap compiles the module here, for that kernel "
         "(apt-get install linux-headers-" +
         release + ")";
}

std::string program_problem(const SshHost& host, const HostFacts& facts,
                            const std::string& program) {
  if (!facts.program_sha256.empty()) return "";
  return host.name() + " has no executable " + program +
         ": -c runs the program there, at the path it has on this machine (copy it there, or "
         "give the path it has on both)";
}

void warn_if_copies_differ(const std::string& what, const std::string& there,
                           const std::string& program) {
  if (there.empty() || there == Sha256().update_file(program).hex()) return;
  std::fprintf(stderr,
               "iotap: warning: %s differs from this machine's %s: probes in it (USDT) are "
               "placed from this copy and may miss or misfire there\n",
               what.c_str(), program.c_str());
}

void check_attached_program(const SshHost& host, const HostFacts& facts,
                            const std::string& program) {
  if (facts.program_sha256.empty())
    throw UserError(host.name() + " has no executable " + program +
                    ": attaching follows the processes running it there, with probes placed "
                    "from this machine's copy at the same path (install the same package "
                    "version there, or trace the server with -x PID)");
  warn_if_copies_differ(host.name() + "'s " + program, facts.program_sha256, program);
}

HostFacts ask_host(const SshHost& host, std::optional<pid_t> pid,
                   const std::optional<std::string>& program) {
  const Captured captured =
      capture(agent_command(
                  host, {"probe", pid ? std::to_string(*pid) : "-", program.value_or("-")}, false),
              doing("while asking " + host.name() + " about its kernel"));
  if (!captured.status.ok()) throw UserError(connection_failure(host, captured));
  HostFacts facts = parse_host_facts(captured.out);
  facts.asked_program = program.value_or("");
  return facts;
}

HostFacts probe_host(const SshHost& host, std::optional<pid_t> pid,
                     const std::optional<std::string>& program) {
  HostFacts facts = ask_host(host, pid, program);
  if (const std::string problem = host_problem(host, facts, this_machine()); !problem.empty())
    throw UserError(problem);
  return facts;
}

std::string read_host_kallsyms(const SshHost& host, const HostFacts& facts) {
  const Captured captured = capture(agent_command(host, {"kallsyms"}, needs_sudo(facts)),
                                    doing("while reading " + host.name() + "'s kallsyms"));
  if (!captured.status.ok()) throw UserError(connection_failure(host, captured));
  return captured.out;
}

}  // namespace iotap::remote
