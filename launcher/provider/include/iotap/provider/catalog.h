#pragma once
// The providers iotap ships (providers/*.provider: installed with it, found through
// data_paths) and a user's own provider file, named on the command line.
#include <optional>
#include <string>
#include <vector>

#include "iotap/provider/provider.h"

namespace iotap::provider {

// Every NAME.provider in `dir`, read and parsed, in name order. A bundled file that does not
// parse is iotap's own bug: the UserError names it.
std::vector<Provider> bundled_providers(const std::string& dir);

// `--requests usdt:WHAT`: a path (it has a '/' or ends in .provider) is a user's provider
// file; anything else is the name of one in `dir`. Throws UserError naming the bundled ones
// for a name that is none of them.
Provider find_provider(const std::string& what, const std::string& dir);

// The first of `providers` whose every probe `binary` has with its declared argument count:
// the automatic choice. None when the binary matches none (or cannot be read).
std::optional<Provider> provider_of(const std::string& binary,
                                    const std::vector<Provider>& providers);

// The program a provider's script probes: `traced` when it has any of the provider's probes,
// else
// the provider's first declared program that exists; "" when neither.
std::string probed_program(const Provider& provider, const std::string& traced);

}  // namespace iotap::provider
