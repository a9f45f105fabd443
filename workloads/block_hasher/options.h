// Command-line options of block_hasher, parsed into a plain struct so main() stays small and
// the rules (what is a valid size, which combinations are refused) are unit-testable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace block_hasher {

enum class HashKind { kSha1, kXxh3 };

// "sha1" or "xxh3": the name used in --hash, the report and the JSON.
const char* hash_name(HashKind kind);

struct Options {
  std::string device;
  std::uint64_t block_size = 0;
  int threads = 0;
  std::uint64_t blocks = 0;  // 0: as many whole blocks as the device holds
  bool direct = false;
  HashKind hash = HashKind::kSha1;
  bool json = false;
  bool help = false;  // -h/--help: print usage() and exit 0, nothing else is checked
};

// Limits that keep a typo from turning into an absurd allocation or thread count. pread
// transfers at most 0x7ffff000 bytes, so a bigger block could never be read in one call.
inline constexpr std::uint64_t kMaxBlockSize = std::uint64_t{1} << 30;
inline constexpr int kMaxThreads = 4096;
// O_DIRECT transfers must be multiples of the logical sector size; 512 is the smallest.
inline constexpr std::uint64_t kDirectAlignment = 512;

// Parses argv (argv[0] is the program name). Throws UsageError on anything invalid.
Options parse_options(int argc, char* const* argv);

// Convenience for tests and callers holding strings: argv[0] is supplied.
Options parse_options(const std::vector<std::string>& args);

// The --help text.
std::string usage();

}  // namespace block_hasher
