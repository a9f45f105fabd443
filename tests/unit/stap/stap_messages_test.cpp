// stap's messages name the user's script, not iotap's substituted copy of it; and the "first
// compile takes about 2 minutes" hint appears only when stap's cache has nothing for the kernel.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fake_stap.h"
#include "iotap/stap/compiler.h"
#include "iotap/stap/stap_cache.h"
#include "iotap/stap/stap_stderr.h"
#include "iotap/util/data_paths.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

// stap 4.8's stderr for a script with an unused global and a useless assignment, compiled as
// iotap compiles it (its copy in a private temp dir). Recorded with `stap -p2`.
constexpr const char* kCopy = "/tmp/iotap-run.AbC123/iotap.stp";
constexpr const char* kRecorded =
    "WARNING: Kernel function symbol table missing [man warning::symbols]\n"
    "WARNING: never-assigned global variable 'never_set' (similar: never_set): identifier "
    "'never_set' at /tmp/iotap-run.AbC123/iotap.stp:1:8\n"
    " source: global never_set\n"
    "                ^\n"
    "WARNING: Eliding assignment to 'x': operator '=' at :3:5\n"
    " source:   x = 5\n"
    "             ^\n";

TEST(StapMessages, WarningsNameTheUsersScript) {
  std::string forwarded;
  StapStderr filter([&](std::string_view line) { forwarded += line; });
  filter.name_script(kCopy, "my/probes.stp");
  filter.feed(kRecorded);
  filter.flush();
  EXPECT_EQ(forwarded,
            "WARNING: never-assigned global variable 'never_set' (similar: never_set): identifier "
            "'never_set' at my/probes.stp:1:8\n"
            " source: global never_set\n"
            "                ^\n"
            "WARNING: Eliding assignment to 'x': operator '=' at :3:5\n"
            " source:   x = 5\n"
            "             ^\n");
}

TEST(StapMessages, RunTimeErrorsNameTheUsersScript) {
  std::string forwarded;
  StapStderr filter([&](std::string_view line) { forwarded += line; });
  filter.name_script(kCopy, "s.stp");
  filter.feed(
      "ERROR: division by 0 near operator '/' at /tmp/iotap-run.AbC123/iotap.stp:4:11\n"
      "WARNING: Number of errors: 1, skipped probes: 0\n");
  filter.flush();
  EXPECT_EQ(forwarded,
            "ERROR: division by 0 near operator '/' at s.stp:4:11\n"
            "WARNING: Number of errors: 1, skipped probes: 0\n");
}

// compile_module with a stand-in for stap that warns about the file it is given, as stap does,
// and succeeds: the warning reaches stderr naming the user's script.
TEST(StapMessages, ACompileThatSucceedsWithWarningsNamesTheUsersScript) {
  const FakeStap stap(
      "#!/bin/sh\n"
      "for a; do script=$a; done\n"  // the last argument is the script (no script args)
      "echo \"WARNING: Eliding assignment to 'x': operator '=' at $script:3:5\" >&2\n"
      ": > iotap.ko\n");
  TempDir work;
  ::testing::internal::CaptureStderr();
  const std::string module =
      compile_module(
          {"probe begin { x = 5 }\n", "user/script.stp", "", "", work.path(), {}, "", {}})
          .path;
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(module, work / "iotap.ko");
  EXPECT_EQ(err, "WARNING: Eliding assignment to 'x': operator '=' at user/script.stp:3:5\n");
}

// With script arguments the script is not stap's last word but the one after `--`: stap's
// messages about it still name the user's script.
TEST(StapMessages, WithScriptArgumentsMessagesNameTheUsersScript) {
  const FakeStap stap(
      "#!/bin/sh\n"
      "while [ \"$1\" != -- ]; do shift; done\n"
      "echo \"semantic error: unresolved arity-0 argument \\$3 at $2:2:9\" >&2\n"
      "exit 1\n");
  TempDir work;
  std::string error;
  try {
    compile_module({"probe begin {\n  print($3)\n}\n",
                    "user/args.stp",
                    "",
                    "",
                    work.path(),
                    {"vda", "5"},
                    "",
                    {}});
  } catch (const UserError& e) {
    error = e.what();
  }
  EXPECT_EQ(error,
            "stap could not compile user/args.stp:\n"
            "semantic error: unresolved arity-0 argument $3 at user/args.stp:2:9\n");
}

// stap ends without a word when a signal stops it between two of its steps (a `pkill stap` that
// lands as it starts a kbuild: stap counts the signal, lets the kbuild finish, exits 1), or when
// it is killed outright: the message says what happened rather than ending at a colon.
std::string compile_error(const std::string& fake_stap) {
  const FakeStap stap(fake_stap);
  TempDir work;
  try {
    compile_module({"probe begin {}\n", "s.stp", "", "", work.path(), {}, "", {}});
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(StapMessages, AStapThatEndsWithoutAWordIsSaidToHaveBeenStopped) {
  EXPECT_EQ(compile_error("#!/bin/sh\nexit 1\n"),
            "stap could not compile s.stp: stap exited with status 1 without a message, as it "
            "does when a signal (`pkill stap`, a shutdown) stops it: run again");
  EXPECT_EQ(compile_error("#!/bin/sh\nkill -KILL $$\n"),
            "stap could not compile s.stp: stap was killed by SIGKILL before it finished: run "
            "again");
}

// The block_hasher tapset's @block_hasher_exe comes from a macro file compile_module writes
// per compile, in a -I directory of its own (not the work dir: stap would read the script copy
// there as a tapset): the path given, quoted as a stap string, not the build tree's.
TEST(StapMessages, TheTapsetPathMacroNamesTheGivenBlockHasher) {
  const FakeStap stap(
      "#!/bin/sh\n"
      "while [ $# -gt 0 ]; do\n"
      "  if [ \"$1\" = -I ] && [ -f \"$2/iotap_paths.stpm\" ]; then\n"
      "    cat \"$2/iotap_paths.stpm\" > macros.seen; ls \"$2\" > dir.seen; fi\n"
      "  shift\n"
      "done\n"
      ": > iotap.ko\n");
  TempDir work;
  CompileRequest request{"probe begin {}\n", "s.stp", "", "", work.path(), {}, "", {}};
  request.block_hasher_exe = "/opt/my \"tools\"/block_hasher";
  compile_module(request);
  EXPECT_EQ(read_file(work / "macros.seen"),
            "@define block_hasher_exe %( \"/opt/my \\\"tools\\\"/block_hasher\" %)\n"
            "@define io_replayer_exe %( \"" +
                data_paths().workloads + "/io_replayer/io_replayer\" %)\n");
  EXPECT_EQ(read_file(work / "dir.seen"), "iotap_paths.stpm\n");
}

// ---- is the compile cold? --------------------------------------------------------------------

// A cache entry as stap 4.8 writes it: cache/XX/stapconf_HASH_hash.log (+ the .h once done).
void add_stapconf(const TempDir& cache, const std::string& hash, const std::string& release,
                  const std::string& tree, const std::string& runtime, bool finished = true) {
  const std::string bucket = cache / hash.substr(0, 2);
  std::filesystem::create_directories(bucket);
  write_file(bucket + "/stapconf_" + hash + "_923_hash.log",
             "[Mon Nov 23 10:18:50 2026] stapconf_hash:\n"
             "Systemtap version: 4.8/0.188, Debian version 4.8-2\n"
             "Kernel Release: " +
                 release +
                 "\n"
                 "Kernel Build Tree Path: " +
                 tree +
                 "\n"
                 "Architecture: x86_64\n"
                 "Runtime Path: " +
                 runtime +
                 "\n"
                 "Runtime Size: 4096\n"
                 "\nresult:" +
                 hash + "_923\n");
  if (finished) write_file(bucket + "/stapconf_" + hash + "_923.h", "#define STAPCONF_X 1\n");
}

TEST(StapCache, AnEmptyOrMissingCacheIsCold) {
  TempDir cache;
  EXPECT_FALSE(stap_cache_is_warm(cache.path(), "6.1.0-56-cloud-amd64", "/rt"));
  EXPECT_FALSE(stap_cache_is_warm(cache / "nonexistent", "6.1.0-56-cloud-amd64", "/rt"));
  EXPECT_FALSE(stap_cache_is_warm("", "6.1.0-56-cloud-amd64", "/rt"));
}

TEST(StapCache, AFinishedStapconfForTheKernelAndRuntimeIsWarm) {
  TempDir cache;
  add_stapconf(cache, "1ca1009cfbb333467accf546f7ad9da7", "6.1.0-56-cloud-amd64",
               "/lib/modules/6.1.0-56-cloud-amd64/build", "/work/a/build/stap-runtime");
  EXPECT_TRUE(
      stap_cache_is_warm(cache.path(), "6.1.0-56-cloud-amd64", "/work/a/build/stap-runtime"));
  // Another kernel, another runtime (another build directory): cold.
  EXPECT_FALSE(
      stap_cache_is_warm(cache.path(), "6.1.0-57-cloud-amd64", "/work/a/build/stap-runtime"));
  EXPECT_FALSE(
      stap_cache_is_warm(cache.path(), "6.1.0-56-cloud-amd64", "/work/b/build/stap-runtime"));
  // stap's own runtime: any runtime will do for the guess.
  EXPECT_TRUE(stap_cache_is_warm(cache.path(), "6.1.0-56-cloud-amd64", ""));
}

TEST(StapCache, AKernelGivenAsABuildTreeMatchesTheTreePath) {
  TempDir cache;
  add_stapconf(cache, "8552972f31122e4782527158261dd51f", "6.1.192", "/cache/kernel-tree-x", "/rt");
  EXPECT_TRUE(stap_cache_is_warm(cache.path(), "/cache/kernel-tree-x", "/rt"));
  EXPECT_TRUE(stap_cache_is_warm(cache.path(), "/cache/kernel-tree-x/", "/rt"));
  EXPECT_FALSE(stap_cache_is_warm(cache.path(), "/cache/kernel-tree-y", "/rt"));
}

TEST(StapCache, AnInterruptedCompileLeavesItCold) {
  TempDir cache;
  add_stapconf(cache, "c3bd0b05e585f17db6d94b21aece17bd", "6.1.0-56-cloud-amd64",
               "/lib/modules/6.1.0-56-cloud-amd64/build", "/rt", /*finished=*/false);
  EXPECT_FALSE(stap_cache_is_warm(cache.path(), "6.1.0-56-cloud-amd64", "/rt"));
}

// A compile stopped during stap's tracepoint queries leaves empty objects ("no tracepoints") for
// the headers its kbuild had not finished; only those, written since the compile started, go.
TEST(StapCache, AStoppedCompilesEmptyTracepointQueriesAreForgotten) {
  namespace fs = std::filesystem;
  TempDir cache;
  fs::create_directories(cache / "ab");
  fs::create_directories(cache / "cd");
  const auto started = fs::file_time_type::clock::now();
  const auto write = [&](const std::string& name, const std::string& text) {
    write_file(cache / name, text);
  };
  write("ab/tracequery_11_1295.o", "");  // unfinished: empty, new
  write("ab/tracequery_11_1295_hash.log", "log");
  write("cd/tracequery_22_1296.o",
        "\x7f"
        "ELF");  // a finished query: kept
  write("cd/tracequery_22_1296_hash.log", "log");
  write("cd/tracequery_33_1290.o", "");  // empty, but from an earlier compile: kept
  write("cd/tracequery_33_1290_hash.log", "log");
  fs::last_write_time(cache / "cd/tracequery_33_1290.o", started - std::chrono::hours(1));
  write("cd/stapconf_44_hash.log", "log");
  EXPECT_EQ(forget_unfinished_tracepoint_queries(cache.path(), started), 1U);
  EXPECT_FALSE(fs::exists(cache / "ab/tracequery_11_1295.o"));
  EXPECT_FALSE(fs::exists(cache / "ab/tracequery_11_1295_hash.log"));
  for (const char* kept :
       {"cd/tracequery_22_1296.o", "cd/tracequery_22_1296_hash.log", "cd/tracequery_33_1290.o",
        "cd/tracequery_33_1290_hash.log", "cd/stapconf_44_hash.log"})
    EXPECT_TRUE(fs::exists(cache / kept)) << kept;
  EXPECT_EQ(forget_unfinished_tracepoint_queries("", started), 0U);
}

TEST(StapCache, TheDirectoryFollowsStapsOwnRule) {
  const char* old_dir = std::getenv("SYSTEMTAP_DIR");
  const std::string saved = old_dir != nullptr ? old_dir : "";
  ::setenv("SYSTEMTAP_DIR", "/somewhere/stap", 1);
  EXPECT_EQ(stap_cache_dir(), "/somewhere/stap/cache");
  ::unsetenv("SYSTEMTAP_DIR");
  EXPECT_EQ(stap_cache_dir(), std::string(std::getenv("HOME")) + "/.systemtap/cache");
  if (old_dir != nullptr) ::setenv("SYSTEMTAP_DIR", saved.c_str(), 1);
}

}  // namespace
}  // namespace iotap::stap
