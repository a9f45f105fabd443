#include "options.h"

#include "error.h"

namespace io_replayer {

std::string usage() {
  return "usage: io_replayer -r RECORDING -d DEVICE [--pace recorded|fast|xN] [--allow-writes]\n"
         "                   [--json] [-h|--help]\n"
         "\n"
         "Replays an iotap recording (docs/recording-format.md) on DEVICE: one thread per\n"
         "recorded thread, each issuing its requests in the recorded order, at the recorded\n"
         "offsets (scaled down, with a warning, when DEVICE is smaller than the recording's "
         "span),\n"
         "with O_DIRECT where the recording had it.\n"
         "\n"
         "  -r, --recording FILE  what `iotap record` wrote\n"
         "  -d, --device DEVICE   a block device or regular file\n"
         "      --pace recorded   each request at its recorded time from the start (default); a\n"
         "                        thread whose previous request ends later issues at once\n"
         "      --pace fast       each request as soon as its thread's previous one ends\n"
         "      --pace xN         recorded times divided by N, 0.001 to 1000 (x2: twice as fast)\n"
         "      --allow-writes    replay the recording's writes (they overwrite DEVICE); without\n"
         "                        it a recording that writes is refused\n"
         "      --json            print one JSON object instead of text\n"
         "  -h, --help            print this help\n"
         "\n"
         "Exit status: 0 every request done, 1 some failed or came back short, 2 bad options,\n"
         "recording or device.\n";
}

Pace parse_pace(const std::string& text) {
  if (const auto pace = iotap::recording::parse_pace(text)) return *pace;
  throw Error(std::string("--pace must be ") + iotap::recording::kPaceExpected + ", not '" + text +
              "'");
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  const auto value = [&](size_t& i, const std::string& name) -> const std::string& {
    if (i + 1 >= args.size()) throw Error(name + " needs a value (see io_replayer --help)");
    return args[++i];
  };
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    }
    if (arg == "-r" || arg == "--recording") {
      options.recording = value(i, arg);
    } else if (arg == "-d" || arg == "--device") {
      options.device = value(i, arg);
    } else if (arg == "--pace") {
      options.pace = parse_pace(value(i, arg));
    } else if (arg == "--allow-writes") {
      options.allow_writes = true;
    } else if (arg == "--json") {
      options.json = true;
    } else {
      throw Error("unknown option '" + arg + "' (see io_replayer --help)");
    }
  }
  if (options.recording.empty()) throw Error("give the recording to replay: -r FILE");
  if (options.device.empty()) throw Error("give the device to replay on: -d DEVICE");
  return options;
}

}  // namespace io_replayer
