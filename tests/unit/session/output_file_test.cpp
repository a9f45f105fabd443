#include "iotap/session/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "iotap/util/error.h"
#include "iotap/util/temp_dir.h"

namespace iotap::session {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(const std::string& path) {
  try {
    OutputFile out(path);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(OutputFile, AnUnwritablePathFailsBeforeTheRun) {
  const TempDir dir("iotap-output-test");
  EXPECT_EQ(error_of(dir / "no-such-dir/report.txt"),
            "cannot write -o '" + (dir / "no-such-dir/report.txt") + "': no directory '" +
                (dir / "no-such-dir") + "' (name a file in a directory you can write to)");
  EXPECT_NE(error_of(dir.path()).find("it is a directory"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "no-such-dir"));
}

TEST(OutputFile, AnOldReportStaysUntilTheFirstWrite) {
  const TempDir dir("iotap-output-test");
  const std::string path = dir / "report.txt";
  std::ofstream(path) << "yesterday's report\n";
  {
    OutputFile out(path);
    // A run that fails here, before it has anything to say, loses nothing.
    EXPECT_EQ(contents(path), "yesterday's report\n");
    out.write("line 1\n");
    EXPECT_EQ(contents(path), "line 1\n");  // replaced, and flushed at once
    out.write("line 2\n");
  }
  EXPECT_EQ(contents(path), "line 1\nline 2\n");
}

TEST(OutputFile, ANewFileInTheCurrentDirectory) {
  const TempDir dir("iotap-output-test");
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  {
    OutputFile out("report.json");
    EXPECT_FALSE(std::filesystem::exists("report.json"));
    out.write("{}\n");
  }
  std::filesystem::current_path(previous);
  EXPECT_EQ(contents(dir / "report.json"), "{}\n");
}

TEST(OutputFile, AnEmptyWriteLeavesAnEmptyReport) {
  // iotap run with a script that prints nothing still leaves the -o file it was asked for.
  const TempDir dir("iotap-output-test");
  const std::string path = dir / "report.txt";
  std::ofstream(path) << "yesterday's report\n";
  OutputFile(path).write("");
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(contents(path), "");
}

TEST(OutputFile, NoPathIsStdout) {
  EXPECT_EQ(error_of(""), "");
}

TEST(OutputFile, AKernelFileThatOpensButTakesNoWritesIsRefused) {
  // Root opens /proc/version for writing; every write then fails, after the whole run.
  EXPECT_EQ(error_of("/proc/version"),
            "cannot write -o '/proc/version': it is a kernel interface file, not a place for a "
            "report (name a file in a directory you can write to)");
  EXPECT_NE(error_of("/proc/iotap-report.txt").find("is a kernel interface"), std::string::npos);
  EXPECT_NE(error_of("/sys/kernel/iotap.txt").find("is a kernel interface"), std::string::npos);
}

TEST(OutputFile, StreamsAreAccepted) {
  EXPECT_EQ(error_of("/dev/null"), "");
  const TempDir dir("iotap-output-test");
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo), "");  // checked without opening: that would wait for a reader
}

}  // namespace
}  // namespace iotap::session
