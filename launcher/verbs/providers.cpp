// iotap providers [NAME|FILE] [--script] [--program PATH]: the request sources iotap can follow,
// one provider's levels and probes checked against its program, or the script iotap writes
// for it.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "iotap/provider/catalog.h"
#include "iotap/provider/probe_check.h"
#include "iotap/provider/script_generator.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
namespace {

namespace po = boost::program_options;
using provider::Provider;

constexpr const char* kHelp = R"help(usage: iotap providers [NAME|FILE] [--script] [--program PATH]

A provider is a request source declared in a file (docs/providers.md): which USDT probes of a
program begin and end its requests, how an end is paired with its begin, and which arguments
give the op, file, offset and size. attribute, diagnose and record follow a provider's
requests when the traced program has all of its probes, or when --requests usdt:NAME (one of
these) or --requests usdt:FILE (a file of your own) asks for it.

Without arguments: the providers iotap ships, with their levels and the program each probes.
With NAME or FILE: that provider read and checked (a mistake is one line naming the file and
line), its levels and probes, and whether its program has every probe with the argument count
the file declares. --script prints the SystemTap script iotap writes for it (PB, PT and PE
lines, docs/event-format.md), as attribute would compile it; for a provider with no program
line and no --program, the script probes __EXE__, which `iotap run SCRIPT -c CMD` fills in
with the -c program.

example:
  iotap providers postgresql --script | less
  iotap providers ./myapp.provider --program ./myapp
  iotap providers ./myapp.provider --script > myapp.stp
  iotap run myapp.stp --target vm --stack 'raid0(ram*2)' -c './myapp __DEV__'

)help";

std::string level_line(const provider::Level& level) {
  std::string line = "  " + level.name + " (" + level.plural + "): " + level.begin.name + "/" +
                     std::to_string(level.begin.args) + " .. " + level.end.name + "/" +
                     std::to_string(level.end.args) + ", paired by " +
                     (level.pair_key ? level.pair_key->to_text() : std::string("thread"));
  if (level.op != '-') line += std::string(", op ") + level.op;
  return line;
}

void print_list() {
  const auto providers = provider::bundled_providers(data_paths().providers);
  for (const auto& provider : providers) {
    std::cout << provider.name << "  " << provider.about << "\n";
    std::string levels;
    for (const auto& level : provider.levels) levels += (levels.empty() ? "" : ", ") + level.name;
    std::cout << "  levels: " << levels << "\n";
    std::cout << "  program: "
              << (provider.programs.empty() ? "the traced one" : provider.programs.front())
              << "; events: "
              << (provider.script.empty() ? "generated (PB/PT/PE)" : provider.script) << "\n";
    std::cout << "  file: " << provider.path << "\n";
  }
  std::cout << providers.size() << " providers in " << data_paths().providers << "\n";
}

// The program to check or probe: --program, else the provider's declared program that exists
// here; "" for neither.
std::string program_for(const Provider& provider, const std::string& asked) {
  if (!asked.empty()) return std::filesystem::absolute(asked).lexically_normal().string();
  return provider::probed_program(provider, "");
}

int describe(const Provider& provider, const std::string& program) {
  std::cout << provider.name << ": " << provider.about << "\n";
  for (const auto& level : provider.levels) std::cout << level_line(level) << "\n";
  if (program.empty()) {
    std::cout << "no program to check its probes against: give --program PATH\n";
    return 0;
  }
  const std::string problem = provider::probe_mismatch(provider, program);
  if (!problem.empty()) throw UserError(problem);
  std::cout << program << " has every probe, with the declared argument counts\n";
  return 0;
}

int print_script(const Provider& provider, const std::string& program) {
  if (!provider.script.empty()) {
    std::cout << "// " << provider.name
              << " prints its own events: " << data_paths().examples + "/" + provider.script
              << "\n";
    return 0;
  }
  // No program: iotap run's __EXE__, the -c program, filled in when the script is run.
  std::cout << provider::generated_script(provider, program.empty() ? "__EXE__" : program);
  return 0;
}

}  // namespace

int providers(Args args) {
  po::options_description options("options");
  std::string program;
  options.add_options()                                                       //
      ("script", "print the SystemTap script iotap writes for the provider")  //
      ("program", po::value(&program)->value_name("PATH"),
       "the program to check or probe (default: the provider's own program line)")  //
      ("help,h", "show this help");
  po::options_description hidden;
  hidden.add_options()("provider", po::value<std::string>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("provider", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(std::vector<std::string>(args.begin(), args.end()))
                .options(all)
                .positional(positional)
                .run(),
            vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << kHelp << options << "\n" << exit_status::help_text(exit_status::Verb::kPlain);
    return 0;
  }
  if (vm.count("provider") == 0) {
    if (vm.count("script") != 0 || !program.empty())
      throw UserError("--script and --program need a provider: iotap providers NAME --script");
    print_list();
    return 0;
  }
  const Provider provider =
      provider::find_provider(vm["provider"].as<std::string>(), data_paths().providers);
  const std::string path = program_for(provider, program);
  return vm.count("script") == 0 ? describe(provider, path) : print_script(provider, path);
}

}  // namespace iotap::verbs
