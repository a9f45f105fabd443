#pragma once
// The shared options of every verb with a target (add_target_options), parsed from `args` as a
// verb parses them: for the session tests that check what reaches TargetOptions.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "iotap/session/target_options.h"

namespace iotap::session {

inline TargetOptions parse_target_options(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  TargetOptions options;
  po::options_description description;
  add_target_options(description, options, "vm");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(description).run(), vm);
  po::notify(vm);
  return options;
}

}  // namespace iotap::session
