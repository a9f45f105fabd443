// iotap compare: two attributions (attribute, diagnose or replay --json files, or recordings)
// side by side, the differences worth a look marked.
#include "iotap/compare/compare.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <string>
#include <system_error>

#include "iotap/recording/recording.h"
#include "iotap/report/attribution_check.h"
#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/json_text.h"
#include "iotap/verbs/verbs.h"

namespace iotap::verbs {
using session::OutputFile;
using session::parse_options;

namespace {

namespace po = boost::program_options;

constexpr const char* kHelp =
    R"(usage: iotap compare A B [--json] [-o FILE]

Puts two attributions side by side: the requests (count, latency percentiles, per kind), the
layers of their critical paths, every device (matched by name: ios, mean, p99) and the verdicts.
A and B are what `iotap attribute`, `diagnose` or `replay` printed with --json, or recordings
made by `iotap record` (their requests' latencies as recorded; a recording holds no block I/O,
so its side of the layer and device rows has no data: shown -, never marked). The change is B
against A, and it is marked << when B differs from A by more than 20% of A (and, for latencies,
by more than 100 us). Devices are matched by name.

examples:
  iotap record -o hasher.rec --target vm --stack 'raid0(ram*4)' \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 4 -n 64 --direct'
  iotap replay hasher.rec --target vm --stack 'raid1(ram, delay(ram, 10ms))' --json -o replay.json
  iotap compare hasher.rec replay.json
  iotap compare before.json after.json --json

options)";

// The attribution in `path`: a --json report, or a recording's requests.
Json load(const std::string& path) {
  const std::string text =
      read_input_file(path, "an attribution or a recording",
                      std::max<uint64_t>(report::kMaxAttributionBytes, recording::kMaxBytes));
  if (text.starts_with(recording::kMagic)) {
    try {
      return compare::attribution_of(recording::parse(text, path));
    } catch (const recording::FormatError& e) {
      throw UserError(e.what());
    }
  }
  // Recordings may be larger than attributions: the JSON's own limit, before it is parsed.
  if (text.size() > report::kMaxAttributionBytes)
    throw UserError(path + " is " + size_text(text.size()) +
                    ": more than iotap reads as an attribution (at most " +
                    size_text(report::kMaxAttributionBytes) + ")");
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw UserError(path +
                    " is neither JSON nor a recording (give the --json of iotap attribute, "
                    "diagnose or replay, or what iotap record wrote)");
  compare::check_attribution(doc, path);
  return doc;
}

}  // namespace

int compare(Args args) {
  std::string a_path;
  std::string b_path;
  std::string output;
  bool json = false;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "json", po::bool_switch(&json), "print the comparison as JSON (schema iotap.compare/1)")(
      "output,o", po::value(&output)->value_name("FILE"), "write it to FILE instead of stdout");
  po::options_description hidden;
  hidden.add_options()("a", po::value(&a_path))("b", po::value(&b_path));
  po::positional_options_description positional;
  positional.add("a", 1).add("b", 1);
  if (!parse_options(args, visible, kHelp, &hidden, &positional, exit_status::Verb::kPlain))
    return 0;
  if (a_path.empty() || b_path.empty())
    throw UserError(
        "iotap compare needs two files: iotap compare A.json B.json (see 'iotap "
        "compare --help')");
  OutputFile out(output);
  out.refuse_input(a_path, "the file it compares");
  out.refuse_input(b_path, "the file it compares");
  const Json a = load(a_path);
  const Json b = load(b_path);
  const Json comparison = compare::compare(a, a_path, b, b_path);
  out.write(json ? to_text(comparison) : compare::compare_text(comparison));
  return 0;
}

}  // namespace iotap::verbs
