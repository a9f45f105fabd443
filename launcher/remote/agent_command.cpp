#include "agent_command.h"

#include <cstdlib>
#include <utility>

#include "iotap/runner/scripts.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/files.h"
#include "iotap/util/lines.h"
#include "iotap/util/quoting.h"

namespace iotap::remote {

namespace {

// The ssh command line a user would try by hand.
std::string ssh_hint(const SshHost& host) {
  return ssh_command_hint(host, "ssh") + " true";
}

}  // namespace

SpawnOptions doing(std::string activity, int stdin_fd) {
  SpawnOptions options;
  options.activity = std::move(activity);
  options.stdin_fd = stdin_fd;
  return options;
}

std::string last_line_of(std::string_view text) {
  std::string last;
  for_each_line(text, [&last](std::string_view line) {
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) last = line;
  });
  if (!last.empty() && last.back() == '\r') last.pop_back();
  return last;
}

// Without its comments, blank lines and indentation: the command an ssh server takes has a limit
// (dropbear's is 9000 bytes: "String too long"), and the comments are for readers of agent.sh,
// not for the host.
std::string agent_text() {
  std::string text;
  const auto add = [&text](const std::string& path) {
    for_each_line(read_file(path), [&text](std::string_view line) {
      const size_t start = line.find_first_not_of(" \t");
      if (start == std::string_view::npos || line[start] == '#') return;
      text += line.substr(start);
      text += '\n';
    });
  };
  // The md and dm lines of a device, as the guest's init reports them.
  add(runner::device_lines_script());
  add(runner::staprun_script());
  add(data_paths().ssh_agent);
  return text;
}

std::vector<std::string> agent_command(const SshHost& host, const std::vector<std::string>& words,
                                       bool sudo) {
  std::vector<std::string> argv{"ssh", "-T",
                                "-e",  "none",
                                "-o",  "BatchMode=yes",
                                "-o",  "ConnectTimeout=15",
                                "-o",  "ServerAliveInterval=5",
                                "-o",  "ServerAliveCountMax=3"};
  // A configuration of its own (the tests': keys, and host keys that change with each boot).
  if (const char* config = std::getenv("IOTAP_SSH_CONFIG"); config != nullptr && *config != '\0')
    argv.insert(argv.end(), {"-F", config});
  if (host.port != 0) argv.insert(argv.end(), {"-p", std::to_string(host.port)});
  if (!host.user.empty()) argv.insert(argv.end(), {"-l", host.user});
  std::string remote = sudo ? "sudo -n sh -c " : "sh -c ";
  remote += single_quoted(agent_text());
  remote += " iotap-agent";
  for (const auto& word : words) remote += " " + single_quoted(word);
  argv.insert(argv.end(), {"--", host.host, remote});
  return argv;
}

bool needs_sudo(const HostFacts& facts) {
  return facts.privilege == "sudo";
}

std::string connection_failure(const SshHost& host, const Captured& captured) {
  const std::string why = last_line_of(captured.err);
  if (captured.status.code == kSshFailed)
    return host.name() + ": ssh could not run iotap's agent there (" +
           (why.empty()                ? "ssh exited with status 255"
            : why.starts_with("ssh: ") ? why
                                       : "ssh: " + why) +
           "); check that '" + ssh_hint(host) + "' works without a password prompt";
  return host.name() + ": iotap's agent failed there (status " +
         std::to_string(captured.status.code) + (why.empty() ? "" : ": " + why) + ")";
}

}  // namespace iotap::remote
