// iotap report: an attribution saved with --json, drawn again as the HTML page --html writes.
#include "iotap/report.h"

#include <boost/program_options.hpp>
#include <filesystem>
#include <string>

#include "iotap/report/attribution_check.h"
#include "iotap/report/html.h"
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
    R"(usage: iotap report RESULT.json -o FILE.html

Draws an attribution saved with --json (iotap attribute, diagnose or replay) as one
self-contained HTML page, the one their --html option writes: the verdict first, the stack as a
tree with the slow member marked, the requests' and each device's latency histogram over powers
of two, each layer's share of the requests' time, the slowest requests' waterfalls (when the
run kept them: --slowest N), every device's numbers, what was lost and what the probes cost.
The page fetches nothing (no script, no font, no network): it can be mailed, attached to a
ticket, or opened offline.

examples:
  iotap diagnose --target vm --stack 'raid0(ram*7, delay(ram, 50ms))' --json -o incident.json \
      -c 'block_hasher -d __DEV__ -b 1048576 -t 8 -n 64 --direct'
  iotap report incident.json -o incident.html
  iotap attribute --target vm --stack 'raid1(ram, delay(ram, 20ms))' --slowest 3 \
      --html mirror.html -c 'dd if=/dev/zero of=__DEV__ bs=4k count=64 conv=fsync'

options)";

Json load(const std::string& path) {
  Json doc = Json::parse(read_input_file(path, "an attribution", report::kMaxAttributionBytes),
                         nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw UserError(path +
                    " is not JSON (give what iotap attribute, diagnose or replay printed with "
                    "--json)");
  report::check_attribution(doc, path);
  return doc;
}

}  // namespace

int report(Args args) {
  std::string input;
  std::string output;
  po::options_description visible;
  visible.add_options()("help,h", "show this help")(
      "output,o", po::value(&output)->value_name("FILE"),
      "write the page to FILE (required: a page on a terminal is no use)");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&input));
  po::positional_options_description positional;
  positional.add("input", 1);
  if (!parse_options(args, visible, kHelp, &hidden, &positional, exit_status::Verb::kPlain))
    return 0;
  if (input.empty())
    throw UserError(
        "iotap report needs a saved attribution: iotap report RESULT.json -o "
        "FILE.html (see 'iotap report --help')");
  if (output.empty()) throw UserError("iotap report needs -o FILE.html: where to write the page");
  OutputFile out(output);
  out.refuse_input(input, "the attribution it reads");
  const Json attribution = load(input);
  out.write(report::html(attribution, std::filesystem::path(input).filename().string()));
  return 0;
}

}  // namespace iotap::verbs
