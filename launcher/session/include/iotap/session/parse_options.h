#pragma once
// Every verb parses its options the same way: Boost.Program_options, --help printing the verb's
// own help text followed by its options.
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/positional_options.hpp>
#include <span>
#include <string>

#include "iotap/util/exit_status.h"

namespace iotap::session {

// Parses `args` against `visible` (plus `hidden`, e.g. positional arguments, when given) and
// runs the notifiers. Returns false after printing `help` when --help was asked for, followed
// by the options and the exit statuses the verb can end with (`exits`).
bool parse_options(
    std::span<const std::string> args, const boost::program_options::options_description& visible,
    const char* help, const boost::program_options::options_description* hidden = nullptr,
    const boost::program_options::positional_options_description* positional = nullptr,
    exit_status::Verb exits = exit_status::Verb::kTracing);

}  // namespace iotap::session
