// iotap probes BINARY [--json]: the USDT probes a binary carries, with their argument types.
#include <algorithm>
#include <array>
#include <boost/program_options.hpp>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/provider/catalog.h"
#include "iotap/provider/probe_check.h"
#include "iotap/usdt/stapsdt_notes.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/exit_status.h"
#include "iotap/util/json_text.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
namespace {

namespace po = boost::program_options;
using usdt::Argument;
using usdt::Probe;
using usdt::ProbeList;

constexpr const char* kHelp = R"help(usage: iotap probes BINARY [--json]

Lists the USDT probes compiled into BINARY (a program or shared library built with
<sys/sdt.h> probes), read from its .note.stapsdt section. Nothing is run or traced; use it
to see what a stap script can attach to, and with which arguments.

example:
  iotap probes build/workloads/block_hasher/block_hasher

  PROVIDER      NAME          ARGS                     SEMAPHORE  PC
  block_hasher  run_start     u64 u64 s32 u64 s32      0x15228    0xe9f1
  block_hasher  read_start    u64 s32 u64 u64 u64      0x15230    0x102e9
  block_hasher  read_done     u64 s32 u64 u64 u64 s64  0x15232    0x1030c
  ...
  8 probes in build/workloads/block_hasher/block_hasher
  provider block_hasher: every probe it needs is here (attribute follows them; ...)

  read_start(request_id, thread_index, block_index, offset, size) shows as u64 s32 u64 u64
  u64; run_start's first u64 is its char* device: a pointer is an unsigned 64-bit word. The
last lines name iotap's providers (iotap providers) whose every probe the binary has.

columns:
  PROVIDER, NAME  attach with process("BINARY").provider("PROVIDER").mark("NAME")
  ARGS            one word per argument, $arg1 first: s = signed integer, u = unsigned
                  integer or pointer, f = floating point, then the size in bits (s32 is an
                  int32_t); ? = size not recorded (built with a very old sdt.h); - = no arguments
  SEMAPHORE       address of the counter a tracer raises to enable the probe; - when the probe
                  has none and always fires
  PC              link-time address of the probe site (prelink shifts applied)

--json prints the same with each argument's operand, e.g. "%edx" or "-16(%rbp)". A binary
without probes is an error in the table form (exit 2, "... has no USDT probes"); with --json it
is a valid answer: {"binary": ..., "probes": [], "problems": []}, exit 0. Files that cannot be
read, are not ELF, or are damaged are errors in both forms (exit 2).

)help";

std::string hex(std::uint64_t value) {
  std::array<char, 16> digits{};
  auto* const end = std::to_chars(digits.data(), digits.data() + digits.size(), value, 16).ptr;
  return "0x" + std::string(digits.data(), end);
}

std::string argument_word(const Argument& arg) {
  if (arg.size_bytes == 0) {
    return "?";
  }
  const char kind = arg.is_float ? 'f' : (arg.is_signed ? 's' : 'u');
  return kind + std::to_string(arg.size_bytes * 8);
}

std::string argument_words(const Probe& probe) {
  if (probe.args.empty()) {
    return "-";
  }
  std::string words;
  for (const Argument& arg : probe.args) {
    if (!words.empty()) {
      words += ' ';
    }
    words += argument_word(arg);
  }
  return words;
}

void print_table(const std::string& binary, const ProbeList& list) {
  using Row = std::vector<std::string>;
  std::vector<Row> rows{{"PROVIDER", "NAME", "ARGS", "SEMAPHORE", "PC"}};
  for (const Probe& probe : list.probes) {
    rows.push_back({probe.provider, probe.name, argument_words(probe),
                    probe.semaphore == 0 ? "-" : hex(probe.semaphore), hex(probe.pc)});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line += std::string(widths[i] - row[i].size() + 2, ' ');
      }
    }
    std::cout << line << '\n';
  }
  const std::size_t n = list.probes.size();
  std::cout << n << (n == 1 ? " probe in " : " probes in ") << binary << '\n';
  // Which of iotap's providers (docs/providers.md) this binary has every probe of.
  for (const auto& provider : provider::bundled_providers(data_paths().providers)) {
    if (provider::probe_mismatch(provider, list, binary).empty())
      std::cout << "provider " << provider.name << ": every probe it needs is here (attribute "
                << "follows them; --requests usdt:" << provider.name << ")\n";
  }
}

Json json_probe(const Probe& probe) {
  Json args = Json::array();
  for (const Argument& arg : probe.args) {
    args.push_back({{"size", arg.size_bytes},
                    {"signed", arg.is_signed},
                    {"float", arg.is_float},
                    {"operand", arg.operand}});
  }
  return {{"provider", probe.provider},
          {"name", probe.name},
          {"pc", hex(probe.pc)},
          {"semaphore", probe.semaphore == 0 ? Json(nullptr) : Json(hex(probe.semaphore))},
          {"args", std::move(args)}};
}

void print_json(const std::string& binary, const ProbeList& list) {
  Json probes = Json::array();
  for (const Probe& probe : list.probes) probes.push_back(json_probe(probe));
  const Json json{{"binary", binary}, {"probes", std::move(probes)}, {"problems", list.problems}};
  std::cout << to_text(json);
}

}  // namespace

int probes(Args args) {
  po::options_description options("options");
  options.add_options()                          //
      ("json", "print JSON instead of a table")  //
      ("help,h", "show this help");
  po::options_description hidden;
  hidden.add_options()("binary", po::value<std::string>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("binary", 1);

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
  if (vm.count("binary") == 0) {
    throw UserError("probes needs a BINARY to read (e.g. 'iotap probes ./block_hasher')");
  }
  const auto binary = vm["binary"].as<std::string>();

  auto result = usdt::read_probes(binary);
  if (!result && result.error_is_no_probes() && vm.count("json") != 0) {
    print_json(binary, ProbeList{});
    return 0;
  }
  if (!result) {
    throw UserError(result.error());
  }
  const ProbeList& list = *result;
  if (vm.count("json") != 0) {
    print_json(binary, list);
  } else if (!list.probes.empty()) {
    print_table(binary, list);
  }
  if (!list.problems.empty()) {
    std::cout.flush();
    for (const std::string& problem : list.problems) {
      std::cerr << "iotap: " << binary << ": " << problem << '\n';
    }
    throw UserError(binary + " has " + std::to_string(list.problems.size()) +
                    " corrupted USDT note(s) (rebuild it; any probes listed were read intact)");
  }
  return 0;
}

}  // namespace iotap::verbs
