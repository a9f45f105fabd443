// issue 27: iotap run as a user runs it, with special files where files go. A FIFO as an output
// is waited for, saying so, and a stop signal ends the wait with 130 or 143 (before: open()
// blocked for ever and ignored both); a report on a full stdout is an error, not exit 0.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>
#include <vector>

#include "iotap/util/temp_dir.h"

namespace iotap {
namespace {

const std::string kIotap = IOTAP_BINARY;
const std::string kAttribution = std::string(ATTRIBUTION_DATA_DIR) + "/valid.json";

// iotap started with `args`, its stdout on `stdout_path` (or a pipe, when empty), its stderr a
// pipe read line by line.
class Iotap {
 public:
  explicit Iotap(const std::vector<std::string>& args, const std::string& stdout_path = "") {
    int err[2];
    int out[2];
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int stdout_fd =
          stdout_path.empty() ? out[1] : ::open(stdout_path.c_str(), O_WRONLY | O_CLOEXEC);
      ::dup2(stdout_fd, STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      std::vector<char*> argv{const_cast<char*>(kIotap.c_str())};
      for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(err[1]);
    ::close(out[1]);
    err_ = err[0];
    out_ = out[0];
  }
  Iotap(const Iotap&) = delete;
  Iotap& operator=(const Iotap&) = delete;
  ~Iotap() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(err_);
    ::close(out_);
  }

  // stderr up to and including the first line that holds `text` (blocking: iotap writes it when
  // it gets there), or all of it when iotap ends first.
  std::string stderr_until(const std::string& text) {
    while (stderr_.find(text) == std::string::npos) {
      char c = 0;
      if (::read(err_, &c, 1) != 1) break;
      stderr_ += c;
    }
    return stderr_;
  }

  // Waits for iotap's end: its exit status (128 + N when signal N killed it), with all of its
  // stderr and stdout read.
  int wait() {
    stderr_until("\x01never");
    for (char c = 0; ::read(out_, &c, 1) == 1;) stdout_ += c;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  void signal(int sig) const { ::kill(pid_, sig); }
  [[nodiscard]] const std::string& err() const { return stderr_; }
  [[nodiscard]] const std::string& out() const { return stdout_; }

 private:
  pid_t pid_ = 0;
  int err_ = -1;
  int out_ = -1;
  std::string stderr_;
  std::string stdout_;
};

class FifoOutput : public testing::TestWithParam<int> {};

TEST_P(FifoOutput, WithoutAReaderIsWaitedForSayingSoAndAStopSignalEndsTheWait) {
  const int sig = GetParam();
  const TempDir dir("iotap-fifo-test");
  const std::string fifo = dir / "report.html";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Iotap iotap({"report", kAttribution, "-o", fifo});
  EXPECT_NE(iotap.stderr_until("(Ctrl-C gives up)\n")
                .find("iotap: -o '" + fifo +
                      "' is a FIFO that no process reads yet: waiting for one (Ctrl-C gives up)\n"),
            std::string::npos)
      << iotap.err();
  iotap.signal(sig);
  EXPECT_EQ(iotap.wait(), 128 + sig) << iotap.err();
  EXPECT_NE(
      iotap.err().find(std::string("iotap: stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                       " while waiting for a reader of -o '" + fifo + "'\n"),
      std::string::npos)
      << iotap.err();
}

INSTANTIATE_TEST_SUITE_P(Signals, FifoOutput, testing::Values(SIGINT, SIGTERM),
                         [](const testing::TestParamInfo<int>& info) {
                           return info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

TEST(FifoOutput, AReaderThatComesGetsTheWholeReport) {
  const TempDir dir("iotap-fifo-test");
  const std::string fifo = dir / "comparison.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Iotap iotap({"compare", kAttribution, kAttribution, "-o", fifo});
  iotap.stderr_until("(Ctrl-C gives up)\n");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_CLOEXEC);  // the writer is there
  ASSERT_GE(reader, 0);
  std::string report;
  for (char c = 0; ::read(reader, &c, 1) == 1;) report += c;
  ::close(reader);
  EXPECT_EQ(iotap.wait(), 0) << iotap.err();
  EXPECT_NE(report.find("\nverdict\n  A: slow member dm-0"), std::string::npos) << report;
}

// `--html ''`, `-o ''` meant stdout or nothing, `--stack ''` no stack ('--html=' is boost's to
// refuse, and a CLI test cannot pass an empty word: these are run here).
TEST(EmptyValues, AnOptionGivenAnEmptyValueIsRefusedBeforeAnythingRuns) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"report", kAttribution, "-o", ""},
       "iotap: -o is given an empty value: give it one, or leave -o out\n"},
      {{"attribute", "--html", "", "--target", "local", "-c", "true"},
       "iotap: --html is given an empty value: give it one, or leave --html out\n"},
      {{"diagnose", "--stack", "", "--target", "vm", "-c", "true"},
       "iotap: --stack is given an empty value: give it one, or leave --stack out\n"},
      {{"record", "-c", "true", "--target", "local", "--output", ""},
       "iotap: --output is given an empty value: give it one, or leave --output out\n"},
  };
  for (const auto& [args, message] : cases) {
    Iotap iotap(args);
    EXPECT_EQ(iotap.wait(), 2) << args[0];
    EXPECT_EQ(iotap.err(), message) << args[0];
    EXPECT_EQ(iotap.out(), "") << args[0];
  }
}

// `compare`'s report, `doctor`'s and `--help`'s on a full disk: before, each exited 0.
TEST(StdoutOnAFullDisk, IsAnErrorSaidOnStderr) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compare", kAttribution, kAttribution},
        std::vector<std::string>{"compare", kAttribution, kAttribution, "--json"},
        std::vector<std::string>{"doctor", "--target", "vm"}, std::vector<std::string>{"--help"}}) {
    Iotap iotap(args, "/dev/full");
    EXPECT_EQ(iotap.wait(), 2) << args[0] << ": " << iotap.err();
    const std::string message =
        "iotap: cannot write the report to stdout: No space left on device\n";
    const size_t at = iotap.err().find(message);
    EXPECT_NE(at, std::string::npos) << args[0] << ": " << iotap.err();
    EXPECT_EQ(iotap.err().find(message, at + 1), std::string::npos)
        << "said twice: " << iotap.err();
  }
}

TEST(StdoutOnAFullDisk, AWorkingStdoutIsNotAnError) {
  Iotap iotap({"compare", kAttribution, kAttribution});
  EXPECT_EQ(iotap.wait(), 0) << iotap.err();
  EXPECT_EQ(iotap.err(), "");
  EXPECT_NE(iotap.out().find("verdict"), std::string::npos);
}

}  // namespace
}  // namespace iotap
