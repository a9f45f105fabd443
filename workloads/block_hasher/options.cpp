#include "options.h"

#include <getopt.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "error.h"

namespace block_hasher {
namespace {

// Values for options that have no short form.
enum LongOnly : int { kOptDirect = 256, kOptHash, kOptJson };

// A whole number in [1, max]. strtoull alone would accept " 12", "+12", "-1" (wrapping to
// 2^64-1) and "12x" (stopping at the x), so the text is checked to be digits only first and
// fully consumed after.
std::uint64_t parse_count(const char* text, const std::string& what, std::uint64_t max,
                          const std::string& example) {
  const std::string_view view(text);
  const bool digits_only =
      !view.empty() && view.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits_only) {
    throw UsageError(what + " must be a positive whole number, got '" + std::string(view) + "'",
                     example);
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == nullptr || *end != '\0') {
    throw UsageError(what + " must be a positive whole number, got '" + std::string(view) + "'",
                     example);
  }
  if (value == 0) {
    throw UsageError(what + " must be at least 1, got '" + std::string(view) + "'", example);
  }
  if (errno == ERANGE || value > max) {
    throw UsageError(
        what + " " + std::string(view) + " is too large, the maximum is " + std::to_string(max),
        example);
  }
  return value;
}

HashKind parse_hash(std::string_view name) {
  if (name == "sha1") return HashKind::kSha1;
  if (name == "xxh3") return HashKind::kXxh3;
  throw UsageError("unknown hash '" + std::string(name) + "'", "use --hash sha1 or --hash xxh3");
}

// What a run cannot do without, and what it refuses together.
void check_complete(const Options& options, bool have_device) {
  if (!have_device) {
    throw UsageError("missing -d DEVICE",
                     "give the block device or file to read, e.g. -d /dev/md0");
  }
  if (options.device.empty()) {
    throw UsageError("empty device path",
                     "give the block device or file to read, e.g. -d /dev/md0");
  }
  if (options.block_size == 0) {
    throw UsageError("missing -b BLOCK_SIZE",
                     "give the size of each read in bytes, e.g. -b 1048576");
  }
  if (options.threads == 0) {
    throw UsageError("missing -t THREADS", "give the number of reader threads, e.g. -t 8");
  }
  if (options.direct && options.block_size % kDirectAlignment != 0) {
    throw UsageError("with --direct the block size must be a multiple of 512, got " +
                         std::to_string(options.block_size),
                     "use e.g. -b 4096, or drop --direct");
  }
}

}  // namespace

const char* hash_name(HashKind kind) {
  return kind == HashKind::kXxh3 ? "xxh3" : "sha1";
}

std::string usage() {
  return "usage: block_hasher -d DEVICE -b BLOCK_SIZE -t THREADS [-n BLOCKS] [--direct]\n"
         "                    [--hash sha1|xxh3] [--json] [-h|--help]\n"
         "\n"
         "Reads DEVICE (a block device or a regular file) with THREADS threads; thread i reads\n"
         "blocks i, i+THREADS, i+2*THREADS, ... with pread and keeps a running digest of them.\n"
         "\n"
         "  -d, --device DEVICE     block device or regular file to read\n"
         "  -b, --block-size BYTES  size of each read; a multiple of 512 with --direct\n"
         "  -t, --threads N         number of reader threads\n"
         "  -n, --blocks N          total blocks over all threads (default: the whole device)\n"
         "      --direct            open with O_DIRECT, bypassing the page cache\n"
         "      --hash NAME         sha1 (default) or xxh3\n"
         "      --json              print one JSON object instead of text\n"
         "  -h, --help              print this help\n"
         "\n"
         "Exit status: 0 all blocks read, 1 some reads failed, 2 bad options or device.\n";
}

Options parse_options(int argc, char* const* argv) {
  static const std::array<option, 9> kLongOptions = {{
      {"device", required_argument, nullptr, 'd'},
      {"block-size", required_argument, nullptr, 'b'},
      {"threads", required_argument, nullptr, 't'},
      {"blocks", required_argument, nullptr, 'n'},
      {"direct", no_argument, nullptr, kOptDirect},
      {"hash", required_argument, nullptr, kOptHash},
      {"json", no_argument, nullptr, kOptJson},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  }};

  Options options;
  bool have_device = false;
  // getopt keeps its position in globals: optind = 0 makes glibc start over (parse_options
  // runs many times in the unit tests), opterr = 0 keeps it from printing its own messages
  // so every error is the single line UsageError gives. The leading ':' makes a missing
  // value return ':' instead of '?'.
  optind = 0;
  opterr = 0;
  int opt = 0;
  while ((opt = getopt_long(argc, argv, ":d:b:t:n:h", kLongOptions.data(), nullptr)) != -1) {
    switch (opt) {
      case 'd':
        options.device = optarg;
        have_device = true;
        break;
      case 'b':
        options.block_size = parse_count(optarg, "block size", kMaxBlockSize, "e.g. -b 1048576");
        break;
      case 't':
        options.threads = static_cast<int>(parse_count(
            optarg, "thread count", static_cast<std::uint64_t>(kMaxThreads), "e.g. -t 8"));
        break;
      case 'n':
        options.blocks = parse_count(optarg, "block count", UINT64_MAX,
                                     "e.g. -n 1000, or leave -n out to read the whole device");
        break;
      case kOptDirect:
        options.direct = true;
        break;
      case kOptHash:
        options.hash = parse_hash(optarg);
        break;
      case kOptJson:
        options.json = true;
        break;
      case 'h':
        options.help = true;
        return options;
      case ':':
        throw UsageError(std::string("option ") + argv[optind - 1] + " needs a value",
                         "see block_hasher --help");
      default:
        throw UsageError(std::string("unknown option ") + argv[optind - 1],
                         "see block_hasher --help");
    }
  }
  if (optind < argc) {
    throw UsageError(std::string("unexpected argument '") + argv[optind] + "'",
                     "the device goes after -d; see block_hasher --help");
  }
  check_complete(options, have_device);
  return options;
}

Options parse_options(const std::vector<std::string>& args) {
  // getopt_long may permute argv, so it gets private, writable copies.
  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.emplace_back("block_hasher");
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return parse_options(static_cast<int>(storage.size()), argv.data());
}

}  // namespace block_hasher
