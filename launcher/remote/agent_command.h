#pragma once
// How iotap reaches a host's agent (agent.sh): the ssh command line that runs one request, and
// what is said when ssh or the agent fails.
#include <string>
#include <string_view>
#include <vector>

#include "iotap/remote/ssh_target.h"
#include "iotap/util/process.h"

namespace iotap::remote {

// ssh's status when ssh itself failed (could not connect, authenticate, or lost the connection).
inline constexpr int kSshFailed = 255;

// What a spawned ssh is doing, for its messages; `stdin_fd`: what it reads.
SpawnOptions doing(std::string activity, int stdin_fd = -1);

// The last line of `text` that is not blank.
std::string last_line_of(std::string_view text);

// The words that make ssh run `request` of the agent on the host: the agent's text is the
// argument of `sh -c`, quoted for the remote login shell, and so is every word after it.
std::vector<std::string> agent_command(const SshHost& host, const std::vector<std::string>& words,
                                       bool sudo);

// Whether the agent runs under sudo there.
bool needs_sudo(const HostFacts& facts);

// The message for an ssh that failed before the agent ran, or an agent that failed.
std::string connection_failure(const SshHost& host, const Captured& captured);

}  // namespace iotap::remote
