#include "iotap/session/parse_options.h"

#include <algorithm>
#include <boost/program_options/parsers.hpp>
#include <boost/program_options/variables_map.hpp>
#include <iostream>

#include "iotap/session/program_output.h"
#include "iotap/util/error.h"

namespace iotap::session {

namespace po = boost::program_options;

namespace {

// An option given an empty value ('-o ""', '--stack='): refused, as no option of iotap's means
// anything by one (an empty -o would silently mean stdout, an empty --stack no stack). The
// positional words are left to their verb: a script's arguments may be empty.
void refuse_empty_values(const po::parsed_options& parsed) {
  for (const auto& option : parsed.options) {
    if (option.position_key != -1 || option.unregistered) continue;
    const bool empty = std::ranges::any_of(option.value, [](const auto& v) { return v.empty(); });
    if (!empty || option.original_tokens.empty()) continue;
    // As typed: "-o", "--html" (from "--html=").
    std::string name = option.original_tokens.front();
    name = name.substr(0, name.find('='));
    if (!name.starts_with("--") && name.size() > 2) name.resize(2);
    std::string message = name;
    message += " is given an empty value: give it one, or leave ";
    message += name;
    message += " out";
    throw UserError(message);
  }
}

}  // namespace

bool parse_options(std::span<const std::string> args, const po::options_description& visible,
                   const char* help, const po::options_description* hidden,
                   const po::positional_options_description* positional, exit_status::Verb exits) {
  po::options_description all;
  all.add(visible);
  if (hidden != nullptr) all.add(*hidden);
  po::command_line_parser parser(std::vector<std::string>(args.begin(), args.end()));
  parser.options(all);
  if (positional != nullptr) parser.positional(*positional);
  const po::parsed_options parsed = parser.run();
  refuse_empty_values(parsed);
  po::variables_map vm;
  po::store(parsed, vm);
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

}  // namespace iotap::session
