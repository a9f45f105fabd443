#pragma once
// Runs the real iotap binary for the vm tests, hands back what it printed, and reads it.
#include <string>
#include <vector>

#include "iotap/util/process.h"

namespace iotap::test {

// Runs `iotap ARGS...` to completion, with TMPDIR pointed at a private directory that the
// caller can check is left empty, and `extra_env` ("NAME=value") added to the environment.
Captured run_iotap(const std::vector<std::string>& args, const std::string& tmpdir,
                   const std::vector<std::string>& extra_env = {});

// The lines of `text` whose first word is `word`, each split into its words.
std::vector<std::vector<std::string>> lines_starting_with(const std::string& text,
                                                          const std::string& word);

// How many probe hits stap skipped in the run (its "skipped probes: N" at the end; 0 if none):
// a hit is skipped when another probe handler is running on the same CPU.
int skipped_probes(const Captured& run);

// Fails the current test loudly when the guest cannot be booted on this machine at all.
void require_guest_tools();

}  // namespace iotap::test
