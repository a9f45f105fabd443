#pragma once
// iotap run's stap options: the ones passed on to stap and staprun (-D, -G, -g, -d, -v, -T,
// --all-modules, --suppress-time-limits), and the ones iotap sets itself, refused with why.
#include <boost/program_options/options_description.hpp>

#include "iotap/stap/stap_options.h"

namespace iotap::session {

// Adds the passed-on options to `visible` and the refused ones (-p, -m, -r, -R, -I, -e, -l, -L,
// -F, -b, --runtime) to `hidden`; the refused ones throw UserError when parsed options are
// notified.
void add_stap_pass_options(boost::program_options::options_description& visible,
                           boost::program_options::options_description& hidden,
                           stap::StapOptions& options);

}  // namespace iotap::session
