// issue 27: output lost or overwritten without a word. A recording replaces the old file only
// when it is committed (a run that recorded nothing leaves the old one); an output that is an
// input, or two outputs that are one file, are refused; an option given an empty value is
// refused rather than taken as "stdout" or "no stack".
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "iotap/session/output_file.h"
#include "iotap/session/parse_options.h"
#include "iotap/util/error.h"
#include "iotap/util/temp_dir.h"

namespace iotap::session {
namespace {

namespace fs = std::filesystem;
using Replace = OutputFile::Replace;

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t files_in(const TempDir& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir.path()), {}));
}

TEST(OutputCommit, TheOldFileIsReplacedOnlyWhenCommittedAndKeepsItsPermissions) {
  const TempDir dir("iotap-commit-test");
  const std::string path = dir / "old.rec";
  std::ofstream(path) << "a good recording\n";
  ::chmod(path.c_str(), 0640);
  {
    OutputFile out(path, "-o", Replace::kAtCommit);
    out.write("iotap-recording 1\n");
    out.write("end {}\n");
    EXPECT_EQ(contents(path), "a good recording\n") << "replaced before the commit";
    out.commit();
  }
  EXPECT_EQ(contents(path), "iotap-recording 1\nend {}\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640U);
  EXPECT_EQ(files_in(dir), 1U) << "the temporary file is gone";
}

// `iotap record -o old.rec` of a run that recorded nothing (exit 3): before, old.rec was
// replaced by a recording of no request.
TEST(OutputCommit, WithoutACommitTheOldFileStaysAndNothingIsLeftBeside) {
  const TempDir dir("iotap-commit-test");
  const std::string path = dir / "old.rec";
  std::ofstream(path) << "a good recording\n";
  {
    OutputFile out(path, "-o", Replace::kAtCommit);
    out.write("iotap-recording 1\nheader {}\n");
  }
  EXPECT_EQ(contents(path), "a good recording\n");
  EXPECT_EQ(files_in(dir), 1U);
  {
    OutputFile out(dir / "new.rec", "-o", Replace::kAtCommit);
    out.write("iotap-recording 1\nheader {}\n");
  }
  EXPECT_FALSE(fs::exists(dir / "new.rec"));
  EXPECT_EQ(files_in(dir), 1U);
}

TEST(OutputCommit, ThroughASymbolicLinkTheFileItNamesIsReplaced) {
  const TempDir dir("iotap-commit-test");
  std::ofstream(dir / "real.rec") << "old\n";
  fs::create_symlink(dir / "real.rec", dir / "link.rec");
  OutputFile out(dir / "link.rec", "-o", Replace::kAtCommit);
  out.write("new\n");
  out.commit();
  EXPECT_TRUE(fs::is_symlink(dir / "link.rec"));
  EXPECT_EQ(contents(dir / "real.rec"), "new\n");
}

std::string refusal(const std::function<void()>& check) {
  try {
    check();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// `report a.json -o a.json`, `compare A B -o A`, `replay x.rec -o x.rec`: the same file however
// it is spelt (device and inode), refused before anything is written.
TEST(SameFile, AnOutputThatIsAnInputIsRefused) {
  const TempDir dir("iotap-same-file-test");
  const std::string input = dir / "a.json";
  std::ofstream(input) << "{}\n";
  fs::create_directory(dir / "sub");
  const OutputFile out(dir / "sub/../a.json");
  EXPECT_EQ(refusal([&] { out.refuse_input(input, "the attribution it reads"); }),
            "-o '" + (dir / "sub/../a.json") + "' is the attribution it reads ('" + input +
                "'): writing it would replace it; name another file");
  EXPECT_EQ(contents(input), "{}\n");
  EXPECT_EQ(refusal([&] { OutputFile(dir / "b.json").refuse_input(input, "x"); }), "");
  EXPECT_EQ(refusal([&] { OutputFile("").refuse_input(input, "x"); }), "") << "stdout";
  EXPECT_EQ(refusal([&] { OutputFile("/dev/null").refuse_input("/dev/null", "x"); }), "");
}

// `--html F --perfetto F -o F` kept only the last one written.
TEST(SameFile, TwoOutputsThatAreOneFileAreRefusedStreamsMayBeNamedTwice) {
  const TempDir dir("iotap-same-file-test");
  const OutputFile out(dir / "r.txt");
  const OutputFile html(dir / "./r.txt", "--html");
  const OutputFile perfetto(dir / "t.json", "--perfetto");
  EXPECT_EQ(refusal([&] { OutputFile::refuse_same_file({&out, nullptr, &perfetto}); }), "");
  EXPECT_EQ(refusal([&] {
              OutputFile::refuse_same_file({&out, &perfetto, &html});
            }),
            "-o '" + (dir / "r.txt") + "' and --html '" + (dir / "./r.txt") +
                "' name the same file: one would replace the other; name two files");
  std::ofstream(dir / "exists.txt") << "x\n";
  fs::create_directory(dir / "sub");
  const OutputFile a(dir / "exists.txt");
  const OutputFile b(dir / "sub/../exists.txt", "--html");
  EXPECT_NE(refusal([&] { OutputFile::refuse_same_file({&a, &b}); }), "");
  const OutputFile null_a("/dev/null");
  const OutputFile null_b("/dev/null", "--html");
  const OutputFile to_stdout("");
  const OutputFile to_stdout_too("");
  EXPECT_EQ(refusal([&] { OutputFile::refuse_same_file({&null_a, &null_b, &to_stdout}); }), "");
  EXPECT_EQ(refusal([&] { OutputFile::refuse_same_file({&to_stdout, &to_stdout_too}); }), "");
}

// `--html ''`, `-o ''` meant stdout or nothing; `--stack ''` no stack.
TEST(EmptyValues, AnOptionGivenAnEmptyValueIsRefused) {
  namespace po = boost::program_options;
  std::string output;
  std::string html;
  std::vector<std::string> script_args;
  po::options_description visible;
  visible.add_options()("output,o", po::value(&output))("html", po::value(&html));
  po::options_description hidden;
  hidden.add_options()("args", po::value(&script_args)->composing());
  po::positional_options_description positional;
  positional.add("args", -1);
  const auto parse = [&](std::vector<std::string> args) {
    return refusal([&] {
      parse_options(args, visible, "help", &hidden, &positional, exit_status::Verb::kPlain);
    });
  };
  EXPECT_EQ(parse({"-o", ""}), "-o is given an empty value: give it one, or leave -o out");
  EXPECT_EQ(parse({"--output", ""}),
            "--output is given an empty value: give it one, or leave --output out");
  EXPECT_EQ(parse({"--html", ""}),
            "--html is given an empty value: give it one, or leave --html out");
  EXPECT_EQ(parse({"-o", "x.txt", "--html", "x.html"}), "");
  // A positional word may be empty: a script's argument can be.
  EXPECT_EQ(parse({"", "b"}), "");
}

}  // namespace
}  // namespace iotap::session
