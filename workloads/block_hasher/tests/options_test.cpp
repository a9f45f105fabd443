// The option parser: what it accepts, what it refuses, and that every refusal is a
// UsageError (one line, exit 2 in main) rather than a crash or a silent default.
#include "options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "error.h"

namespace block_hasher {
namespace {

using Args = std::vector<std::string>;

// The message of the UsageError parse_options throws for args, or "" if it did not throw.
std::string error_of(const Args& args) {
  try {
    parse_options(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(BlockHasherOptions, ParsesShortOptions) {
  const Options options =
      parse_options(Args{"-d", "/dev/md0", "-b", "1048576", "-t", "10", "-n", "10000"});
  EXPECT_EQ(options.device, "/dev/md0");
  EXPECT_EQ(options.block_size, 1048576u);
  EXPECT_EQ(options.threads, 10);
  EXPECT_EQ(options.blocks, 10000u);
  EXPECT_FALSE(options.direct);
  EXPECT_FALSE(options.json);
  EXPECT_FALSE(options.help);
  EXPECT_EQ(options.hash, HashKind::kSha1);
}

TEST(BlockHasherOptions, ParsesLongOptions) {
  const Options options =
      parse_options(Args{"--device=/tmp/f", "--block-size", "4096", "--threads=3", "--blocks", "7",
                         "--direct", "--hash", "xxh3", "--json"});
  EXPECT_EQ(options.device, "/tmp/f");
  EXPECT_EQ(options.block_size, 4096u);
  EXPECT_EQ(options.threads, 3);
  EXPECT_EQ(options.blocks, 7u);
  EXPECT_TRUE(options.direct);
  EXPECT_TRUE(options.json);
  EXPECT_EQ(options.hash, HashKind::kXxh3);
  EXPECT_STREQ(hash_name(options.hash), "xxh3");
}

TEST(BlockHasherOptions, BlocksDefaultsToWholeDevice) {
  EXPECT_EQ(parse_options(Args{"-d", "x", "-b", "512", "-t", "1"}).blocks, 0u);
}

TEST(BlockHasherOptions, HelpNeedsNothingElse) {
  EXPECT_TRUE(parse_options(Args{"-h"}).help);
  EXPECT_TRUE(parse_options(Args{"--help"}).help);
  EXPECT_NE(usage().find("-d DEVICE"), std::string::npos);
}

TEST(BlockHasherOptions, RejectsZeroNegativeAndNonNumericSizes) {
  EXPECT_NE(error_of({"-d", "x", "-b", "0", "-t", "1"}).find("block size must be at least 1"),
            std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "-1"}).find("thread count"), std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "12x", "-t", "1"}).find("'12x'"), std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "1x", "-t", "1"}).find("'1x'"), std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "0"}).find("thread count"), std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "1", "-n", "0"}).find("block count"),
            std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "1", "-n", "-5"}).find("block count"),
            std::string::npos);
}

TEST(BlockHasherOptions, RejectsWhatStrtoullWouldQuietlyAccept) {
  // Leading space or sign, an empty value, and a value beyond 64 bits.
  for (const char* text : {" 12", "+12", "", "0x10", "1.5", "18446744073709551616"}) {
    EXPECT_FALSE(error_of({"-d", "x", "-b", text, "-t", "1"}).empty()) << "'" << text << "'";
  }
}

TEST(BlockHasherOptions, RejectsAbsurdSizes) {
  EXPECT_NE(error_of({"-d", "x", "-b", "2147483648", "-t", "1"}).find("too large"),
            std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "100000"}).find("too large"),
            std::string::npos);
  EXPECT_EQ(parse_options(Args{"-d", "x", "-b", "1073741824", "-t", "4096"}).threads, 4096);
}

TEST(BlockHasherOptions, RequiresDeviceBlockSizeAndThreads) {
  EXPECT_NE(error_of({"-b", "512", "-t", "1"}).find("missing -d"), std::string::npos);
  EXPECT_NE(error_of({"-d", "", "-b", "512", "-t", "1"}).find("empty device"), std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-t", "1"}).find("missing -b"), std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512"}).find("missing -t"), std::string::npos);
}

TEST(BlockHasherOptions, DirectNeedsMultipleOf512) {
  EXPECT_NE(error_of({"-d", "x", "-b", "1000", "-t", "1", "--direct"}).find("multiple of 512"),
            std::string::npos);
  EXPECT_TRUE(parse_options(Args{"-d", "x", "-b", "1536", "-t", "1", "--direct"}).direct);
  // Without --direct any size is fine.
  EXPECT_EQ(parse_options(Args{"-d", "x", "-b", "1000", "-t", "1"}).block_size, 1000u);
}

TEST(BlockHasherOptions, RejectsUnknownOptionsHashesAndStrayArguments) {
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "1", "--bogus"}).find("unknown option --bogus"),
            std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "1", "-q"}).find("unknown option"),
            std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "1", "--hash", "md5"}).find("unknown hash"),
            std::string::npos);
  EXPECT_NE(error_of({"-d", "x", "-b", "512", "-t", "1", "extra"}).find("unexpected argument"),
            std::string::npos);
  EXPECT_NE(error_of({"-b", "512", "-t", "1", "-d"}).find("needs a value"), std::string::npos);
}

TEST(BlockHasherOptions, ErrorLineIsOneLineWithAHint) {
  try {
    parse_options(Args{"-d", "x", "-b", "0", "-t", "1"});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    const std::string line = error.line();
    EXPECT_EQ(line.rfind("block_hasher: ", 0), 0u) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(line.back(), ')') << line;
    EXPECT_FALSE(error.hint().empty());
  }
}

TEST(BlockHasherOptions, ParsingTwiceStartsOver) {
  // getopt keeps global state; a second parse must not continue where the first stopped.
  parse_options(Args{"-d", "a", "-b", "512", "-t", "2"});
  const Options second = parse_options(Args{"-d", "b", "-b", "1024", "-t", "3"});
  EXPECT_EQ(second.device, "b");
  EXPECT_EQ(second.block_size, 1024u);
  EXPECT_EQ(second.threads, 3);
}

}  // namespace
}  // namespace block_hasher
