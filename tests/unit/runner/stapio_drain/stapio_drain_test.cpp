// stapio_drain.so (launcher/runner/stapio_drain/stapio_drain.c) preloaded into a stand-in stapio
// (fake_stapio.c): the messages its readers left in the relay files come out on standard output,
// whole and in sequence order, and stapio's children do not inherit the library.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "iotap/util/files.h"
#include "iotap/util/process.h"
#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

struct Message {
  uint32_t sequence;
  std::string payload;
};

// A relay file as stapio reads it: {u32 sequence; u32 length} and the payload, per message.
std::string relay_file(const std::vector<Message>& messages) {
  std::string bytes;
  for (const auto& message : messages) {
    const uint32_t header[2] = {message.sequence, static_cast<uint32_t>(message.payload.size())};
    bytes.append(reinterpret_cast<const char*>(header), sizeof header);
    bytes += message.payload;
  }
  return bytes;
}

Captured run_stapio(const std::string& dir, int files, const std::string& preload,
                    bool readers = false) {
  SpawnOptions options;
  options.extra_env = {"LD_PRELOAD=" + preload};
  std::vector<std::string> argv{FAKE_STAPIO, dir, std::to_string(files)};
  if (readers) argv.emplace_back("readers");
  return capture(argv, options);
}

struct ReaderCounts {
  unsigned long taken = 0;  // messages stapio's own readers read
  unsigned long long reads = 0;
  unsigned long long writes = 0;
};

// "readers took M; syscalls: read R write W" from the stand-in's standard error.
ReaderCounts reader_counts(const std::string& err) {
  ReaderCounts counts;
  const auto at = err.find("readers took ");
  if (at == std::string::npos ||
      std::sscanf(err.c_str() + at, "readers took %lu; syscalls: read %llu write %llu",
                  &counts.taken, &counts.reads, &counts.writes) != 3)
    ADD_FAILURE() << "no counts in: " << err;
  return counts;
}

// relay_reader.c: the library reads the relay files in stapio's readers' place, while they run,
// and writes the messages in sequence order across the files, many to a write.
TEST(StapioDrain, ReadsTheRelayFilesInStapiosReadersPlaceInSequenceOrder) {
  TempDir dir("stapio-drain-test");
  // 4000 short messages alternating between two CPUs' files, as an I/O's events alternate, and
  // two long ones in the middle of the first file.
  std::vector<Message> cpu0;
  std::vector<Message> cpu1;
  std::string expected;
  for (uint32_t sequence = 1; sequence <= 4002; ++sequence) {
    std::string payload = "C " + std::to_string(sequence) + "\n";
    if (sequence == 1000 || sequence == 1001) payload = std::string(100'000, 'x') + "\n";
    (sequence % 2 != 0 ? cpu0 : cpu1).push_back({sequence, payload});
    expected += payload;
  }
  write_file(dir.path() + "/trace0", relay_file(cpu0));
  write_file(dir.path() + "/trace1", relay_file(cpu1));

  const auto run = run_stapio(dir.path(), 2, STAPIO_DRAIN, true);
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, expected);
  const ReaderCounts counts = reader_counts(run.err);
  EXPECT_EQ(counts.taken, 0U) << "stapio's readers read nothing themselves";
  // stapio's readers take two reads and a write per message: 8004 reads and 4002 writes. The
  // counts include the dynamic loader's reads of the libraries (about 10).
  EXPECT_LT(counts.reads, 100U);
  EXPECT_LT(counts.writes, 20U);
}

// The library holds a file's bytes in a ring of 1 MiB and writes the messages straight out of
// it: files of several times that, with messages of every size up to stap's largest (128 KiB),
// wrap around their rings many times, a message often cut in two at a ring's end, and come out
// whole and in order, whether stapio's readers read them during the run or the library reads
// them all at its end (the readers starved).
TEST(StapioDrain, FilesLargerThanItsRingsComeOutWholeAndInOrder) {
  TempDir dir("stapio-drain-test");
  std::vector<std::vector<Message>> cpus(3);
  std::string expected;
  uint32_t state = 12345;
  const auto next_random = [&state] {
    state = state * 1103515245U + 12345U;
    return state >> 8;
  };
  size_t bytes = 0;
  for (uint32_t sequence = 1; bytes < 10U * 1024 * 1024; ++sequence) {
    // Mostly batches of records (about 2 KiB), some large messages, some tiny ones.
    const uint32_t pick = next_random() % 16;
    const size_t size = pick == 0   ? 1 + next_random() % (128 * 1024)
                        : pick == 1 ? 1 + next_random() % 64
                                    : 1024 + next_random() % 1024;
    std::string payload(size, static_cast<char>('a' + sequence % 26));
    payload.replace(0, std::min(size, size_t{12}), std::to_string(sequence).substr(0, size));
    cpus[next_random() % cpus.size()].push_back({sequence, payload});
    expected += payload;
    bytes += size;
  }
  for (size_t cpu = 0; cpu < cpus.size(); ++cpu)
    write_file(dir.path() + "/trace" + std::to_string(cpu), relay_file(cpus[cpu]));

  for (const bool readers : {true, false}) {
    const auto run = run_stapio(dir.path(), static_cast<int>(cpus.size()), STAPIO_DRAIN, readers);
    ASSERT_EQ(run.status.code, 0) << run.err;
    EXPECT_EQ(run.out.size(), expected.size()) << (readers ? "with readers" : "readers starved");
    EXPECT_TRUE(run.out == expected) << (readers ? "with readers" : "readers starved");
  }
}

TEST(StapioDrain, StapiosChildrenDoNotInheritIt) {
  TempDir dir("stapio-drain-test");
  write_file(dir.path() + "/trace0", "");
  const auto alone = run_stapio(dir.path(), 1, STAPIO_DRAIN);
  EXPECT_EQ(alone.err, "LD_PRELOAD=(unset)\n");
  // What the user preloads stays preloaded.
  const auto with_user_library = run_stapio(dir.path(), 1, STAPIO_DRAIN ":" USER_PRELOAD);
  EXPECT_EQ(with_user_library.err, "LD_PRELOAD=" USER_PRELOAD "\n");
  EXPECT_EQ(alone.out, "");
}

// stapio's standard output is the traced program's too (stapio -c). A write the kernel splits
// (a pipe keeps one whole only up to PIPE_BUF) lets the program's lines in between its pieces,
// inside one of the script's lines: a CI run of events.stp read "RD thread 0: 8 ...". Here a
// "program" writes lines into the pipe for as long as the stand-in stapio runs, the pipe holds
// one page, and every line that comes out must be the program's or one of the script's, whole.
TEST(StapioDrain, ItsLinesArriveWholeBesideTheTracedProgramsOwn) {
  TempDir dir("stapio-drain-test");
  std::vector<Message> cpu0;
  std::vector<Message> cpu1;
  std::string expected;
  for (uint32_t sequence = 1; sequence <= 20'000; ++sequence) {
    const std::string payload =
        "Q " + std::to_string(sequence) + " 0 " + std::string(40, 'q') + "\n";
    (sequence % 2 != 0 ? cpu0 : cpu1).push_back({sequence, payload});
    expected += payload;
  }
  write_file(dir.path() + "/trace0", relay_file(cpu0));
  write_file(dir.path() + "/trace1", relay_file(cpu1));

  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  ASSERT_EQ(fcntl(pipe_fds[1], F_SETPIPE_SZ, 4096), 4096);
  SpawnOptions options;
  options.extra_env = {std::string("LD_PRELOAD=") + STAPIO_DRAIN};
  options.stdout_fd = pipe_fds[1];
  std::atomic<bool> stapio_ended = false;
  std::atomic<unsigned> program_written = 0;
  std::thread program([&] {
    for (unsigned line = 0; !stapio_ended; ++line) {
      const std::string text = "program " + std::to_string(line) + "\n";
      if (write(pipe_fds[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) break;
      ++program_written;
    }
    close(pipe_fds[1]);
  });
  // The program is writing before stapio starts: on a loaded host its thread could otherwise
  // first run after stapio had ended, and write nothing (CI, 2026-11-29).
  while (program_written == 0) std::this_thread::yield();
  const pid_t stapio = spawn({FAKE_STAPIO, dir.path(), "2"}, options);
  std::string out;
  char buffer[4096];
  ssize_t got = 0;
  while ((got = read(pipe_fds[0], buffer, sizeof buffer)) > 0) {
    out.append(buffer, static_cast<size_t>(got));
    if (!stapio_ended && ended(stapio)) stapio_ended = true;
  }
  program.join();
  close(pipe_fds[0]);

  // The script's lines, in order, with the program's taken out; the first line that is neither.
  std::istringstream lines(out);
  std::string line;
  std::string scripts;
  std::string broken;
  size_t program_lines = 0;
  const std::regex program_line("program [0-9]+");
  const std::regex script_line("Q [0-9]+ 0 q{40}");
  while (std::getline(lines, line)) {
    if (std::regex_match(line, program_line)) {
      ++program_lines;
    } else if (std::regex_match(line, script_line)) {
      scripts += line + "\n";
    } else if (broken.empty()) {
      broken = line;
    }
  }
  EXPECT_EQ(broken, "") << "a line of the script's broken by the program's";
  EXPECT_GT(program_lines, 0U);
  EXPECT_TRUE(scripts == expected) << "the script's lines, whole and in order";
}

TEST(StapioDrain, StopsAtAHeaderThatIsNotOne) {
  TempDir dir("stapio-drain-test");
  // A length of 0 is no message (stapio's readers lost their place): nothing after it is used.
  write_file(dir.path() + "/trace0",
             relay_file({{1, "kept\n"}}) + std::string(8, '\0') + relay_file({{2, "after\n"}}));
  const auto run = run_stapio(dir.path(), 1, STAPIO_DRAIN);
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, "kept\n");
}

}  // namespace
}  // namespace iotap
