#pragma once
// A provider held to a binary's USDT probes: every probe its levels name must be there, under
// the provider's name, with the argument count the declaration expects. A layout that differs
// (another PostgreSQL version) is found here, before minutes of compiling, not as a wrong number.
#include <string>

#include "iotap/provider/provider.h"
#include "iotap/usdt/elf_notes.h"

namespace iotap::provider {

// "" when `probes` (read from `binary`) has every probe of `provider` with its declared
// argument count; else one sentence naming the first probe that is missing or differs, what
// was expected and what was found, and where the provider file declares it:
//   "/usr/lib/postgresql/15/bin/postgres has postgresql:smgr__md__read__done with 7 arguments;
//    providers/postgresql.provider:47 expects 8"
std::string probe_mismatch(const Provider& provider, const usdt::ProbeList& probes,
                           const std::string& binary);

// The same against the file at `binary`, read here; a binary that cannot be read or has no
// USDT probes is a mismatch too ("... has no USDT probes (...)").
std::string probe_mismatch(const Provider& provider, const std::string& binary);

}  // namespace iotap::provider
