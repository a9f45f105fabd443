#include "iotap/session/parse_options.h"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/variables_map.hpp>
#include <iostream>

#include "iotap/session/program_output.h"

namespace iotap::verbs {

namespace po = boost::program_options;

bool parse_options(std::span<const std::string> args, const po::options_description& visible,
                   const char* help, const po::options_description* hidden,
                   const po::positional_options_description* positional, exit_status::Verb exits) {
  po::options_description all;
  all.add(visible);
  if (hidden != nullptr) all.add(*hidden);
  po::command_line_parser parser(std::vector<std::string>(args.begin(), args.end()));
  parser.options(all);
  if (positional != nullptr) parser.positional(*positional);
  po::variables_map vm;
  po::store(parser.run(), vm);
  if (vm.contains("help")) {
    std::cout << help << "\n" << visible << "\n";
    // Verbs that run a program say where its output goes; the others (report, doctor) run none.
    if (exits != exit_status::Verb::kPlain && exits != exit_status::Verb::kDoctor)
      std::cout << kProgramOutputHelp << "\n";
    std::cout << exit_status::help_text(exits);
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace iotap::verbs
