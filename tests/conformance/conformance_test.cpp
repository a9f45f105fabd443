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
#include <set>
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
constexpr size_t kThreads = 4;
// The same shape over virtio disks, which (unlike ram, md and dm) are request-based: the block
// request tracepoints fire on them.
constexpr const char* kVirtioStack = "raid0(virtio*3, delay(virtio, 20ms))";
// Long enough (several seconds under TCG) for traceio, which prints from a 1 s timer.
constexpr const char* kLongWorkload = "block_hasher -d __DEV__ -b 1048576 -t 4 -n 192 --direct";
// At least 10 s however fast the host, for scripts that print only from a 5 s timer (192 reads
// of 1 MiB took 2.4 s on a quiet host, and iotop and pf2 printed nothing): one thread's 4 KiB
// reads cover 16 chunks of 512 KiB, 4 of them on the delayed member, whose 512 reads wait 20 ms
// each, one after another.
constexpr const char* kDelayBoundWorkload = "block_hasher -d __DEV__ -b 4096 -t 1 -n 2048 --direct";
// The same reads for longer, for latencytap, which prints only from a 30 s timer: 1792 of the
// 7168 wait 20 ms each on the delayed member, at least 35.8 s (8192 took 49.8 s under load).
constexpr const char* kThirtySecondWorkload =
    "block_hasher -d __DEV__ -b 4096 -t 1 -n 7168 --direct";
// The .meta file's own -c command.
constexpr const char* kMetaCommand = "";

// skipped: the probe hits stap skipped (a handler that waited more than 1 ms for a lock, or
// found one running on its CPU), which a count may lack.
using Check = std::function<void(const std::string& out, const Rows& rows, int skipped)>;

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
  std::string compile_error;  // when set: the script cannot compile here, and stap says this
};

// An example that cannot compile for the guest's kernel, and what stap says about it.
Example failing_to_compile(std::string name, std::string error) {
  Example example(std::move(name), [](const std::string&, const Rows&, int) {});
  example.compile_error = std::move(error);
  return example;
}

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

// One bucket of a @hist_log: its lower bound and how many values fell in it.
struct Bucket {
  long value;
  long count;
};

// The buckets of the first @hist_log printed after the first line starting with `heading`
// ("value |@@@@ count" rows, up to the next blank line); empty when there is no such heading.
std::vector<Bucket> histogram_after(const std::string& text, const std::string& heading) {
  std::vector<Bucket> buckets;
  std::istringstream lines(text);
  bool found = false;
  for (std::string line; std::getline(lines, line);) {
    if (!found) {
      found = line.starts_with(heading);
      continue;
    }
    if (line.find_first_not_of(' ') == std::string::npos) {
      if (!buckets.empty()) break;  // the blank line after the histogram
      continue;
    }
    // "value |---- count" (the header) and "~" (elided empty buckets) are not buckets.
    std::istringstream words(line);
    long value = 0;
    std::string bar;
    if (!(words >> value >> bar) || bar.front() != '|') continue;
    long count = 0;
    if (!(words >> count)) continue;
    buckets.push_back({value, count});
  }
  return buckets;
}

long total(const std::vector<Bucket>& buckets) {
  long sum = 0;
  for (const Bucket& bucket : buckets) sum += bucket.count;
  return sum;
}

const std::vector<Example>& examples() {
  static const std::vector<Example> kExamples{
      {"general/helloworld",
       [](const std::string& out, const Rows&, int) {
         EXPECT_NE(out.find("hello world\n"), std::string::npos);
       },
       kMetaCommand},
      // Per device: total, count and average microseconds from ioblock.request to ioblock.end.
      {"io/ioblktime",
       [](const std::string&, const Rows& rows, int) {
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
       [](const std::string&, const Rows& rows, int skipped) {
         bool found = false;
         for (const auto& row : rows_starting(rows, "block_hasher")) {
           // name, "MAJOR,", MINOR, reads, KB read, B avg, ...: every read, but for the hits
           // stap skipped (its vfs.read.return is a return probe that can miss under load)
           const long reads = number(row, 3);
           if (reads > kReads || reads < kReads - skipped || reads <= 0) continue;
           found = true;
           EXPECT_EQ(number(row, 4), reads * (kReadBytes / 1024));
           EXPECT_EQ(number(row, 5), kReadBytes);
         }
         EXPECT_TRUE(found) << "no block_hasher row with its " << kReads << " reads (" << skipped
                            << " probe hits skipped)";
       }},
      // Per process: open, read(2) and write(2) system calls (block_hasher reads with pread64,
      // so its own reads are not among them: its loader's are).
      {"io/iostats", [](const std::string&, const Rows& rows,
                        int) { EXPECT_FALSE(rows_starting(rows, "block_hasher").empty()); }},
      // Every second: bytes read and written per process, so far.
      {"io/traceio",
       [](const std::string&, const Rows& rows, int) {
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
       [](const std::string&, const Rows& rows, int) {
         const Rows hasher = rows_starting(rows, "block_hasher");
         ASSERT_FALSE(hasher.empty());
         EXPECT_GT(number(hasher[0], 1), 0);
       },
       kDelayBoundWorkload},
      // Per thread: share of the profiling timer's ticks in user and kernel mode.
      {"profiling/thread-times",
       [](const std::string&, const Rows& rows, int) {
         EXPECT_GE(rows_starting(rows, "block_hasher").size(), 4U) << "one row per reading thread";
       }},
      // Every context switch: the task switched from and the task switched to.
      {"profiling/sched_switch",
       [](const std::string& out, const Rows&, int) {
         EXPECT_NE(out.find("block_hasher"), std::string::npos);
       }},
      // Every 5 s: the kernel functions the profiling timer hit most.
      {"profiling/pf2",
       [](const std::string& out, const Rows&, int) {
         EXPECT_NE(out.find("samples recorded:"), std::string::npos);
       },
       kDelayBoundWorkload},
      // At the end: per device, a histogram of the distance in sectors between one request's end
      // and the next one's start (the .meta's sda is md0 here).
      {"io/deviceseeks",
       [](const std::string& out, const Rows&, int skipped) {
         EXPECT_GE(total(histogram_after(out, "Device: md0")) + skipped, kReads)
             << "md0's requests";
       },
       kWorkload, std::vector<std::string>{"md0"}},
      // Every vfs read and write of a file on one device, given as 0xMMmm. The device of a read
      // of /dev/md0 is that of the file system holding the node: the guest's devtmpfs, 0:5
      // (`stat /dev/md0` in the guest: "Device: 0,5"); md0's own 0x0900 prints nothing.
      {"io/traceio2",
       [](const std::string&, const Rows& rows, int skipped) {
         const auto reads = std::count_if(rows.begin(), rows.end(), [](const auto& row) {
           return row.size() == 3 && row[0].starts_with("block_hasher(") && row[1] == "vfs_read" &&
                  row[2] == "0x5";
         });
         // One per pread64 of /dev/md0, but for the hits stap skipped.
         EXPECT_LE(reads, kReads);
         EXPECT_LE(kReads - reads, skipped) << reads << " of block_hasher's preads";
       },
       kWorkload, std::vector<std::string>{"0x0005"}},
      // -G sloth=10: every vfs open that took at least 10 us (the default is 50), with the
      // .meta's command (through sh: iotap's -c takes no shell syntax). -D STP_NO_OVERLOAD, stap's
      // own switch for its overload check: the return handler formats the opened path for each
      // of find's thousands of opens, and under software emulation on a loaded host that was
      // once over half a CPU's cycles in a second (a CI run: "probe overhead (688953434 cycles)
      // exceeded threshold (500000000 cycles)", staprun exiting 1), the guest's clock running
      // on while its vCPU waited for the host.
      {"io/slowvfs",
       [](const std::string&, const Rows& rows, int) {
         size_t proc_opens = 0;
         long fastest = 50;
         for (const auto& row : rows) {
           // NAME[TID] MICROSECONDS PATH
           if (row.size() != 3 || !row[0].ends_with(']')) continue;
           EXPECT_GE(number(row, 1), 10) << row[0] << " " << row[2];
           fastest = std::min(fastest, number(row, 1));
           if (row[0].starts_with("find[") && row[2].starts_with("/proc")) ++proc_opens;
         }
         EXPECT_GT(proc_opens, 0U) << "no slow open of /proc by find";
         // -G reached the module: opens under the default 50 us are printed too.
         EXPECT_LT(fastest, 50) << "-G sloth=10 not in effect";
       },
       "sh -c 'find /proc >/dev/null || true'",
       std::vector<std::string>{"-G", "sloth=10", "-D", "STP_NO_OVERLOAD"}},
      // At the end: a histogram of block request latency, issue to completion (block_rq_issue,
      // block_rq_complete). No arguments: with the .meta's "1 1" it prints once after 1 s and
      // exits, and a run shorter than that prints nothing.
      {"lwtools/biolatency-nd",
       [](const std::string& out, const Rows&, int) {
         // Each 1 MiB read is at least one request on the virtio disks under md0.
         EXPECT_GE(total(histogram_after(out, "bio latency (ns):")), kReads);
       },
       kWorkload, std::vector<std::string>{}, kVirtioStack},
      // Linux 5.8 removed __vfs_read and __vfs_write, the script's probes (do_sync_read went in
      // 4.1), and stap rejects a probe point that matches nothing.
      failing_to_compile("lwtools/fslatency-nd", "no match (similar functions: vfs_read"),
      // Every entry and return of $1 on a thread while it is inside $2: block_hasher's
      // read_blocks inside std::thread's _M_run, which starts each reading thread.
      {"general/para-callgraph",
       [](const std::string&, const Rows& rows, int skipped) {
         std::set<std::string> entered;  // "block_hasher(TID):" of each thread
         size_t returns = 0;
         for (const auto& row : rows) {
           // MICROSECONDS block_hasher(TID):->read_blocks PARAMETERS
           if (row.size() < 2 || !row[1].starts_with("block_hasher(")) continue;
           if (row[1].ends_with(":->read_blocks")) entered.insert(row[1]);
           if (row[1].ends_with(":<-read_blocks")) ++returns;
         }
         EXPECT_FALSE(entered.empty());
         EXPECT_LE(entered.size(), kThreads);
         EXPECT_LE(returns, kThreads);
         // read_blocks entered and left by each reading thread, but for the hits stap skipped: a
         // skipped _M_run hit loses its thread's entry and return (seen once in a suite run,
         // "skipped probes: 1" and 3 threads shown).
         EXPECT_LE(kThreads - entered.size(), static_cast<size_t>(skipped))
             << "read_blocks entered by " << entered.size() << " threads";
         EXPECT_LE(kThreads - returns, static_cast<size_t>(skipped))
             << "read_blocks left " << returns << " times";
       },
       kWorkload,
       std::vector<std::string>{R"(process(")" BLOCK_HASHER_BINARY R"(").function("read_blocks"))",
                                R"(process(")" BLOCK_HASHER_BINARY R"(").function("_M_run"))"}},
      // Every 30 s: why the traced process slept (the latencytop reason of the highest-priority
      // function on the stack where it woke), ranked by total time asleep.
      {"profiling/latencytap",
       [](const std::string& out, const Rows&, int) {
         const size_t header = out.find("Reason ");
         ASSERT_NE(header, std::string::npos);
         const size_t first = out.find('\n', header) + 1;
         const std::string line = out.substr(first, out.find('\n', first) - first);
         EXPECT_TRUE(line.starts_with("Reading from file")) << "ranked first: " << line;
         // REASON... COUNT AVERAGE(us) MAXIMUM(us) PERCENT%
         const std::vector<std::string> words = rows_of(line).at(0);
         ASSERT_GE(words.size(), 4U);
         EXPECT_GE(number(words, words.size() - 3), kDelayUs) << "its average sleep";
       },
       kThirtySecondWorkload},
      // The statements a function ran, for the calls that returned with the condition true:
      // do_sys_openat2 instead of the .meta's do_sys_open, which this kernel inlines into
      // openat(2) (its .call and .return probe only the out-of-line copy, for open(2)).
      {"general/whythefail",
       [](const std::string&, const Rows& rows, int) {
         // cat's open of the missing file: ENOENT, then the statements that led to it.
         const auto failed = std::find_if(rows.begin(), rows.end(), [](const auto& row) {
           return row.size() == 5 && row[0].starts_with("cat[") &&
                  row[2] == "function(do_sys_openat2)" && row[4] == "-2";
         });
         EXPECT_NE(failed, rows.end()) << "no failed open by cat";
         const auto hits = std::find_if(rows.begin(), rows.end(), [](const auto& row) {
           return row.size() == 3 && row[0] == "exit-hit" && row[1] == "count:";
         });
         ASSERT_NE(hits, rows.end());
         EXPECT_GE(number(*hits, 2), 1);
       },
       "sh -c 'cat /root/no-such-file || true'",
       std::vector<std::string>{"kernel", "do_sys_openat2", "$return < 0"}},
      // Per process id, name and system call: how many returned (syscall_any.return). Its
      // syscall_any tapset's init runs 1,660 statements: over stap 4.8's MAXACTION under
      // INTERRUPTIBLE=0, which iotap once forced on every script ("MAXACTION exceeded").
      {"lwtools/syscallbypid-nd",
       [](const std::string&, const Rows& rows, int skipped) {
         // PID CMD SYSCALL COUNT, one row per process: block_hasher's pread64s are its reads.
         long preads = 0;
         for (const auto& row : rows) {
           if (row.size() == 4 && row[1] == "block_hasher" && row[2] == "pread64")
             preads += number(row, 3);
         }
         EXPECT_GE(preads + skipped, kReads) << "block_hasher's pread64 returns";
       }},
      // Per program name: how many system calls it entered (syscall_any), most first.
      {"process/syscalls_by_proc",
       [](const std::string&, const Rows& rows, int skipped) {
         // #SysCalls Process Name
         std::vector<long> counts;
         long hasher = -1;
         for (const auto& row : rows) {
           if (row.size() != 2 || row[0].find_first_not_of("0123456789") != std::string::npos)
             continue;
           counts.push_back(number(row, 0));
           if (row[1] == "block_hasher") hasher = number(row, 0);
         }
         // Its 32 preads and more (its opens, its threads' start).
         EXPECT_GT(hasher + skipped, kReads) << "block_hasher's system calls";
         EXPECT_TRUE(std::ranges::is_sorted(counts, std::greater<>())) << "most first";
       }},
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
  if (!example.compile_error.empty()) {
    EXPECT_NE(run.status.code, 0);
    EXPECT_NE(run.err.find("stap could not compile"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(example.compile_error), std::string::npos) << run.err;
    return;
  }
  ASSERT_EQ(run.status.code, 0) << run.err;
  example.check(run.out, rows_of(run.out), skipped_probes(run));
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
