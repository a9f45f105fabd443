// The real block_hasher binary, run with fork/exec on files this test creates: exit
// statuses, the one-line errors, and per-thread digests checked against digests computed here
// with OpenSSL and libxxhash directly (not through block_hasher's Digest class).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "json_count.h"
#include "test_files.h"

#ifndef BLOCK_HASHER_BIN
#error "BLOCK_HASHER_BIN must name the block_hasher executable"
#endif

namespace {

using block_hasher_test::count;
using block_hasher_test::TempDir;

constexpr std::size_t kMiB = 1048576;
constexpr std::size_t kBlock = 65536;

struct Outcome {
  int status = -1;  // exit status, or 128 + signal if the binary crashed
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs block_hasher with args; stdout and stderr go to files in dir (no pipes to drain).
Outcome run(const TempDir& dir, const std::vector<std::string>& args) {
  const std::string out_path = dir.file("stdout");
  const std::string err_path = dir.file("stderr");
  std::vector<std::string> storage{BLOCK_HASHER_BIN};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Outcome outcome;
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return outcome;
  if (WIFEXITED(status)) outcome.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.status = 128 + WTERMSIG(status);
  outcome.out = slurp(out_path);
  outcome.err = slurp(err_path);
  return outcome;
}

// What thread t of threads should report: the digest of blocks t, t+threads, ... < blocks of
// data, in that order.
std::vector<std::string> expected_digests(const std::vector<std::byte>& data, std::size_t block,
                                          int threads, std::size_t blocks, bool xxh3) {
  std::vector<std::string> digests;
  for (int t = 0; t < threads; ++t) {
    EVP_MD_CTX* sha1 = EVP_MD_CTX_new();
    XXH3_state_t* x = XXH3_createState();
    EVP_DigestInit_ex(sha1, EVP_sha1(), nullptr);
    XXH3_64bits_reset(x);
    for (auto b = static_cast<std::size_t>(t); b < blocks; b += static_cast<std::size_t>(threads)) {
      EVP_DigestUpdate(sha1, data.data() + b * block, block);
      XXH3_64bits_update(x, data.data() + b * block, block);
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(sha1, md.data(), &length);
    std::array<char, 2 * EVP_MAX_MD_SIZE + 1> hex{};
    if (xxh3) {
      std::snprintf(hex.data(), hex.size(), "%016llx",
                    static_cast<unsigned long long>(XXH3_64bits_digest(x)));
    } else {
      for (std::size_t i = 0; i < length; ++i) std::snprintf(hex.data() + 2 * i, 3, "%02x", md[i]);
    }
    digests.emplace_back(hex.data());
    XXH3_freeState(x);
    EVP_MD_CTX_free(sha1);
  }
  return digests;
}

// The error contract: exit 2, nothing on stdout, exactly one "block_hasher: ... (...)" line.
void expect_usage_error(const Outcome& outcome, const std::string& fragment) {
  EXPECT_EQ(outcome.status, 2) << outcome.err;
  EXPECT_EQ(outcome.out, "");
  ASSERT_FALSE(outcome.err.empty());
  EXPECT_EQ(outcome.err.rfind("block_hasher: ", 0), 0U) << outcome.err;
  EXPECT_EQ(outcome.err.find('\n'), outcome.err.size() - 1) << outcome.err;
  EXPECT_EQ(outcome.err.substr(outcome.err.size() - 2), ")\n") << outcome.err;
  EXPECT_NE(outcome.err.find(fragment), std::string::npos) << outcome.err;
}

class BlockHasherCli : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = block_hasher_test::pattern(kMiB);
    block_hasher_test::write_file(file_, data_);
  }

  // Checks a successful --json run over the whole 1 MiB file.
  void expect_full_json_run(const Outcome& outcome, int threads, bool xxh3, bool direct) {
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.err, "");
    const nlohmann::json json = nlohmann::json::parse(outcome.out);
    EXPECT_EQ(json.at("device").get<std::string>(), file_);
    EXPECT_EQ(count(json.at("block_size")), kBlock);
    EXPECT_EQ(count(json.at("threads")), static_cast<unsigned>(threads));
    EXPECT_EQ(count(json.at("blocks")), kMiB / kBlock);
    EXPECT_EQ(count(json.at("bytes")), kMiB);
    EXPECT_EQ(count(json.at("errors")), 0U);
    EXPECT_EQ(json.at("hash").get<std::string>(), xxh3 ? "xxh3" : "sha1");
    EXPECT_EQ(json.at("direct").get<bool>(), direct);
    const std::vector<std::string> digests =
        expected_digests(data_, kBlock, threads, kMiB / kBlock, xxh3);
    const nlohmann::json& per_thread = json.at("per_thread");
    ASSERT_EQ(per_thread.size(), static_cast<std::size_t>(threads));
    std::set<unsigned long long> tids;
    std::uint64_t bytes = 0;
    for (int t = 0; t < threads; ++t) {
      const nlohmann::json& thread = per_thread.at(static_cast<std::size_t>(t));
      EXPECT_EQ(count(thread.at("thread")), static_cast<unsigned>(t));
      EXPECT_EQ(count(thread.at("errors")), 0U);
      EXPECT_EQ(thread.at("digest").get<std::string>(), digests[static_cast<std::size_t>(t)])
          << "thread " << t;
      tids.insert(count(thread.at("tid")));
      bytes += count(thread.at("bytes"));
    }
    EXPECT_EQ(bytes, kMiB);
    EXPECT_EQ(tids.size(), static_cast<std::size_t>(threads)) << "each thread has its own tid";
  }

  TempDir dir_;
  std::string file_ = dir_.file("disk.img");
  std::vector<std::byte> data_;
};

TEST_F(BlockHasherCli, JsonRunMatchesIndependentSha1) {
  const Outcome outcome = run(dir_, {"-d", file_, "-t", "4", "-b", "65536", "--json"});
  expect_full_json_run(outcome, 4, false, false);
  const nlohmann::json json = nlohmann::json::parse(outcome.out);
  for (std::size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(count(json.at("per_thread").at(t).at("blocks")), 4U);
    EXPECT_EQ(count(json.at("per_thread").at(t).at("bytes")), 4 * kBlock);
  }
}

TEST_F(BlockHasherCli, JsonRunMatchesIndependentXxh3) {
  expect_full_json_run(
      run(dir_, {"-d", file_, "-t", "3", "-b", "65536", "--json", "--hash", "xxh3"}), 3, true,
      false);
}

TEST_F(BlockHasherCli, BlockCountSplitsUnevenly) {
  const Outcome outcome = run(dir_, {"-d", file_, "-t", "4", "-b", "65536", "-n", "10", "--json"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  const nlohmann::json json = nlohmann::json::parse(outcome.out);
  EXPECT_EQ(count(json.at("blocks")), 10U);
  const std::vector<std::string> digests = expected_digests(data_, kBlock, 4, 10, false);
  const std::array<unsigned, 4> expected_blocks = {3, 3, 2, 2};
  for (std::size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(count(json.at("per_thread").at(t).at("blocks")), expected_blocks[t]);
    EXPECT_EQ(json.at("per_thread").at(t).at("digest").get<std::string>(), digests[t]);
  }
}

TEST_F(BlockHasherCli, TextOutputHasThreadLinesAndTotal) {
  const Outcome outcome = run(dir_, {"-d", file_, "-t", "4", "-b", "65536"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  std::istringstream in(outcome.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5U) << outcome.out;
  const std::vector<std::string> digests = expected_digests(data_, kBlock, 4, 16, false);
  for (std::size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(lines[t].rfind("thread " + std::to_string(t) + ": 4 blocks, 256.0 KiB in ", 0), 0U)
        << lines[t];
    const std::string tail = ", 0 errors, sha1 " + digests[t];
    EXPECT_EQ(lines[t].substr(lines[t].size() - tail.size()), tail) << lines[t];
  }
  EXPECT_EQ(lines[4].rfind("total: 16 blocks, 1.0 MiB in ", 0), 0U) << lines[4];
}

TEST_F(BlockHasherCli, PartialLastBlockIsNotRead) {
  std::vector<std::byte> longer = data_;
  longer.resize(kMiB + 100);
  block_hasher_test::write_file(file_, longer);
  expect_full_json_run(run(dir_, {"-d", file_, "-t", "2", "-b", "65536", "--json"}), 2, false,
                       false);
}

TEST_F(BlockHasherCli, DeviceNameIsEscapedInJson) {
  const std::string odd = dir_.file("we\"ird\\na\tme");
  block_hasher_test::write_file(odd, data_);
  const Outcome outcome = run(dir_, {"-d", odd, "-t", "1", "-b", "65536", "--json"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_EQ(nlohmann::json::parse(outcome.out).at("device").get<std::string>(), odd);
}

TEST_F(BlockHasherCli, DirectWorksOrSaysWhyNot) {
  // This fixture's file is in /tmp: O_DIRECT works there on ext4/xfs and is refused on tmpfs.
  const Outcome outcome = run(dir_, {"-d", file_, "-t", "4", "-b", "65536", "--json", "--direct"});
  if (outcome.status == 2) {
    expect_usage_error(outcome, "O_DIRECT");
    GTEST_SKIP() << "the filesystem of /tmp refuses O_DIRECT: " << outcome.err;
  }
  expect_full_json_run(outcome, 4, false, true);
}

TEST_F(BlockHasherCli, DirectNeedsBlockSizeMultipleOf512) {
  expect_usage_error(run(dir_, {"-d", file_, "-t", "1", "-b", "1000", "--direct"}),
                     "multiple of 512");
}

TEST_F(BlockHasherCli, MissingDevice) {
  expect_usage_error(run(dir_, {"-d", dir_.file("absent"), "-t", "1", "-b", "512"}),
                     "No such file or directory");
}

TEST_F(BlockHasherCli, DirectoryIsNotADevice) {
  expect_usage_error(run(dir_, {"-d", dir_.path(), "-t", "1", "-b", "512"}),
                     "not a block device or regular file");
}

TEST_F(BlockHasherCli, CharacterDeviceIsNotADevice) {
  expect_usage_error(run(dir_, {"-d", "/dev/null", "-t", "1", "-b", "512"}),
                     "not a block device or regular file");
}

TEST_F(BlockHasherCli, TooManyBlocks) {
  expect_usage_error(run(dir_, {"-d", file_, "-t", "2", "-b", "65536", "-n", "17"}), "-n 17");
}

TEST_F(BlockHasherCli, BadNumbers) {
  expect_usage_error(run(dir_, {"-d", file_, "-t", "1", "-b", "0"}), "block size");
  expect_usage_error(run(dir_, {"-d", file_, "-t", "-1", "-b", "512"}), "thread count");
  expect_usage_error(run(dir_, {"-d", file_, "-t", "1", "-b", "1x"}), "'1x'");
  expect_usage_error(run(dir_, {"-d", file_, "-t", "1", "-b", "512", "-n", "abc"}), "block count");
}

TEST_F(BlockHasherCli, MissingDeviceOption) {
  expect_usage_error(run(dir_, {"-t", "1", "-b", "512"}), "missing -d");
}

TEST_F(BlockHasherCli, PermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file; permission cannot be denied";
  ASSERT_EQ(chmod(file_.c_str(), 0), 0);
  expect_usage_error(run(dir_, {"-d", file_, "-t", "1", "-b", "512"}), "Permission denied");
}

TEST_F(BlockHasherCli, Help) {
  const Outcome outcome = run(dir_, {"--help"});
  EXPECT_EQ(outcome.status, 0);
  EXPECT_EQ(outcome.out.rfind("usage: block_hasher", 0), 0U) << outcome.out;
  EXPECT_EQ(outcome.err, "");
}

TEST_F(BlockHasherCli, ShortReadsAreCountedAndExitOne) {
  // sysfs attributes claim 4096 bytes but hold a few: every 512-byte read comes back short.
  std::string attribute;
  for (const char* path : {"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
                           "/sys/kernel/uevent_seqnum"}) {
    struct stat st {};
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 1024 &&
        slurp(path).size() < 512) {
      attribute = path;
      break;
    }
  }
  if (attribute.empty()) GTEST_SKIP() << "no sysfs attribute to produce short reads";
  const Outcome outcome = run(dir_, {"-d", attribute, "-t", "2", "-b", "512", "-n", "2", "--json"});
  EXPECT_EQ(outcome.status, 1) << outcome.err;
  const nlohmann::json json = nlohmann::json::parse(outcome.out);
  EXPECT_EQ(count(json.at("errors")), 2U);
  EXPECT_EQ(count(json.at("blocks")), 0U);
  EXPECT_EQ(count(json.at("per_thread").at(0).at("errors")), 1U);
  EXPECT_EQ(count(json.at("per_thread").at(1).at("errors")), 1U);
}

}  // namespace
