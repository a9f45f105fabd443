// The conformance suite: SystemTap's own example scripts (Debian's systemtap-doc), unchanged,
// run through `iotap run` in the guest against block_hasher on a stack with a delayed member.
// Each example takes its arguments from its .meta file (test_installcheck), as SystemTap's own
// installcheck does, unless the table says otherwise (and docs/conformance.md says why). Each
// check is what the script is for, measured against what the workload did.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "example_meta.h"
#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"

namespace iotap::test {
namespace {

using Rows = std::vector<std::vector<std::string>>;

// dm-0 is the delayed member: 20 ms on every bio.
constexpr const char* kStack = "raid0(ram*3, delay(ram, 20ms))";
constexpr int kDelayUs = 20000;
// 4 threads, 32 reads of 1 MiB in all.
constexpr const char* kWorkload = "block_hasher -d __DEV__ -b 1048576 -t 4 -n 32 --direct";
constexpr int kReads = 32;
constexpr int kReadBytes = 1048576;
// Long enough (several seconds under TCG) for traceio, which prints from a 1 s timer.
constexpr const char* kLongWorkload = "block_hasher -d __DEV__ -b 1048576 -t 4 -n 192 --direct";
// At least 10 s however fast the host, for scripts that print only from a 5 s timer (192 reads
// of 1 MiB took 2.4 s on a quiet host, and iotop and pf2 printed nothing): one thread's 4 KiB
// reads cover 16 chunks of 512 KiB, 4 of them on the delayed member, whose 512 reads wait 20 ms
// each, one after another.
constexpr const char* kDelayBoundWorkload = "block_hasher -d __DEV__ -b 4096 -t 1 -n 2048 --direct";
// The .meta file's own -c command.
constexpr const char* kMetaCommand = "";

using Check = std::function<void(const std::string& out, const Rows& rows)>;

struct Example {
  Example(std::string name_, Check check_, std::string workload_ = kWorkload,
          std::optional<std::vector<std::string>> args_ = std::nullopt, std::string stack_ = kStack)
      : name(std::move(name_)),
        check(std::move(check_)),
        workload(std::move(workload_)),
        args(std::move(args_)),
        stack(std::move(stack_)) {}

  std::string name;  // DIR/NAME under the examples directory
  Check check;
  std::string workload;                          // -c; kMetaCommand: the .meta file's
  std::optional<std::vector<std::string>> args;  // replaces the .meta file's when set
  std::string stack;
};

void PrintTo(const Example& example, std::ostream* os) {
  *os << example.name;
}

// Each line's whitespace-separated words.
Rows rows_of(const std::string& text) {
  Rows rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string word; words >> word;) row.push_back(word);
    if (!row.empty()) rows.push_back(std::move(row));
  }
  return rows;
}

// The rows whose first word is `first`.
Rows rows_starting(const Rows& rows, const std::string& first) {
  Rows found;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(found),
               [&](const auto& row) { return row[0] == first; });
  return found;
}

long number(const std::vector<std::string>& row, size_t column) {
  return column < row.size() ? std::stol(row[column]) : -1;
}

const std::vector<Example>& examples() {
  static const std::vector<Example> kExamples{
      {"general/helloworld",
       [](const std::string& out, const Rows&) {
         EXPECT_NE(out.find("hello world\n"), std::string::npos);
       },
       kMetaCommand},
      // Per device: total, count and average microseconds from ioblock.request to ioblock.end.
      {"io/ioblktime",
       [](const std::string&, const Rows& rows) {
         const Rows delayed = rows_starting(rows, "dm-0");
         ASSERT_EQ(delayed.size(), 1U);
         EXPECT_GE(number(delayed[0], 4), kDelayUs);
         for (const char* ram : {"ram0", "ram1", "ram2"}) {
           for (const auto& row : rows_starting(rows, ram))
             EXPECT_LT(number(row, 4), number(delayed[0], 4)) << ram;
         }
       }},
      // Per process and device: vfs reads and writes, counts and bytes.
      {"io/iodevstats",
       [](const std::string&, const Rows& rows) {
         bool found = false;
         for (const auto& row : rows_starting(rows, "block_hasher")) {
           // name, "MAJOR,", MINOR, reads, KB read, B avg, ...
           if (number(row, 3) != kReads) continue;
           found = true;
           EXPECT_EQ(number(row, 4), kReads * (kReadBytes / 1024));
           EXPECT_EQ(number(row, 5), kReadBytes);
         }
         EXPECT_TRUE(found) << "no block_hasher row with its " << kReads << " reads";
       }},
      // Per process: open, read(2) and write(2) system calls (block_hasher reads with pread64,
      // so its own reads are not among them: its loader's are).
      {"io/iostats",
       [](const std::string&, const Rows& rows) {
         EXPECT_FALSE(rows_starting(rows, "block_hasher").empty());
       }},
      // Every second: bytes read and written per process, so far.
      {"io/traceio",
       [](const std::string&, const Rows& rows) {
         long most = 0;
         for (const auto& row : rows) {
           if (row.size() >= 4 && row[1] == "block_hasher" && row[2] == "r:" && row[4] == "MiB")
             most = std::max(most, number(row, 3));
         }
         EXPECT_GT(most, 0);
       },
       kLongWorkload},
      // Every 5 s: KB read and written per process in that interval.
      {"io/iotop",
       [](const std::string&, const Rows& rows) {
         const Rows hasher = rows_starting(rows, "block_hasher");
         ASSERT_FALSE(hasher.empty());
         EXPECT_GT(number(hasher[0], 1), 0);
       },
       kDelayBoundWorkload},
      // Per thread: share of the profiling timer's ticks in user and kernel mode.
      {"profiling/thread-times",
       [](const std::string&, const Rows& rows) {
         EXPECT_GE(rows_starting(rows, "block_hasher").size(), 4U) << "one row per reading thread";
       }},
      // Every context switch: the task switched from and the task switched to.
      {"profiling/sched_switch",
       [](const std::string& out, const Rows&) {
         EXPECT_NE(out.find("block_hasher"), std::string::npos);
       }},
      // Every 5 s: the kernel functions the profiling timer hit most.
      {"profiling/pf2",
       [](const std::string& out, const Rows&) {
         EXPECT_NE(out.find("samples recorded:"), std::string::npos);
       },
       kDelayBoundWorkload},
  };
  return kExamples;
}

class ConformanceTest : public ::testing::TestWithParam<Example> {
 protected:
  void SetUp() override { require_guest_tools(); }
  void TearDown() override {
    EXPECT_TRUE(std::filesystem::is_empty(tmp_.path())) << "iotap left files in its temp directory";
  }
  TempDir tmp_{"iotap-conformance-test"};
};

TEST_P(ConformanceTest, RunsUnchangedInTheGuestAndDoesItsJob) {
  const Example& example = GetParam();
  const std::string base = std::string(STAP_EXAMPLES_DIR) + "/" + example.name;
  const Installcheck meta = read_installcheck(base + ".meta");
  std::vector<std::string> args{"run", base + ".stp"};
  const std::vector<std::string>& script_args = example.args ? *example.args : meta.args;
  args.insert(args.end(), script_args.begin(), script_args.end());
  const std::string command = example.workload.empty() ? meta.command : example.workload;
  args.insert(args.end(), {"--target", "vm", "--stack", example.stack});
  if (!command.empty()) args.insert(args.end(), {"-c", command});
  const auto run = run_iotap(args, tmp_.path());
  ASSERT_EQ(run.status.code, 0) << run.err;
  example.check(run.out, rows_of(run.out));
  if (HasFailure()) ADD_FAILURE() << "output:\n" << run.out << "\nerrors:\n" << run.err;
}

INSTANTIATE_TEST_SUITE_P(SystemTapExamples, ConformanceTest, ::testing::ValuesIn(examples()),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::replace(name.begin(), name.end(), '/', '_');
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace iotap::test
