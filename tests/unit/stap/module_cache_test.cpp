// iotap's module cache: a module compiled once is found again, with its warnings, by a run in
// another work dir; anything that changes the module (the script, its arguments, stap's options
// and version, the programs it names, the tapsets, the runtime, the kernel tree) misses.
#include "iotap/stap/module_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fake_stap.h"
#include "iotap/stap/compiler.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

namespace fs = std::filesystem;

// A stap that answers -V with the version in its directory's `version` file, and otherwise
// logs the call, warns about its script and writes a module holding the script's text.
constexpr const char* kLoggingStap =
    "#!/bin/sh\n"
    "here=$(dirname \"$0\")\n"
    "if [ \"$1\" = -V ]; then cat \"$here/version\" >&2; exit 0; fi\n"
    "while [ \"$1\" != -- ]; do shift; done\n"
    "echo compile >> \"$here/calls\"\n"
    "echo \"WARNING: Eliding assignment to 'x': operator '=' at $2:1:15\" >&2\n"
    "cp \"$2\" iotap.ko\n";

// A run's two steps, as traced_run takes them: the key once, the cache, then stap.
std::optional<CompiledModule> look_up(const CompileRequest& request) {
  return cached_module(request, module_key(request));
}
CompiledModule compile(const CompileRequest& request) {
  return compile_module(request, module_key(request));
}

int lines_in(const std::string& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

class ModuleCacheTest : public ::testing::Test {
 protected:
  ModuleCacheTest() { write_file(stap_.bin() / "version", "Systemtap 4.8 (fake)\n"); }

  [[nodiscard]] CompileRequest request(const TempDir& work) const {
    CompileRequest request{
        "probe begin { x = 5 }\n", "user/script.stp", "", "", work.path(), {}, "", {}};
    request.module_cache_dir = cache_.path();
    return request;
  }
  [[nodiscard]] int compiles() const { return lines_in(stap_.bin() / "calls"); }

  // Compiles `first` (a miss), then looks up `second` in another work dir.
  std::optional<CompiledModule> compile_then_look_up(const CompileRequest& first,
                                                     CompileRequest second) {
    EXPECT_FALSE(look_up(first).has_value());
    compile(first);
    second.work_dir = other_work_.path();
    return look_up(second);
  }

  FakeStap stap_{kLoggingStap};
  TempDir cache_;
  TempDir work_;
  TempDir other_work_;
};

TEST_F(ModuleCacheTest, ASecondRunFindsTheModuleAndShowsItsWarningsAgain) {
  const CompileRequest first = request(work_);
  ::testing::internal::CaptureStderr();
  const CompiledModule compiled = compile(first);
  const std::string compile_warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(compiled.from_cache);
  EXPECT_EQ(compiled.compiled_script_path, script_copy_path(work_.path()));

  ::testing::internal::CaptureStderr();
  const std::optional<CompiledModule> hit = look_up(request(other_work_));
  const std::string hit_warnings = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(hit.has_value());
  EXPECT_TRUE(hit->from_cache);
  EXPECT_EQ(hit->path, other_work_ / "iotap.ko");
  EXPECT_EQ(read_file(hit->path), "probe begin { x = 5 }\n");
  // Its run-time errors name the copy it was compiled from, which the run maps to the user's name.
  EXPECT_EQ(hit->compiled_script_path, script_copy_path(work_.path()));
  EXPECT_EQ(compile_warnings,
            "WARNING: Eliding assignment to 'x': operator '=' at user/script.stp:1:15\n");
  EXPECT_EQ(hit_warnings, compile_warnings);
  EXPECT_EQ(compiles(), 1);
}

TEST_F(ModuleCacheTest, TheScriptItsArgumentsAndStapsOptionsAreInTheKey) {
  CompileRequest other_text = request(work_);
  other_text.script_text = "probe begin { x = 6 }\n";
  EXPECT_FALSE(compile_then_look_up(request(work_), other_text).has_value());

  CompileRequest other_args = request(work_);
  other_args.script_args = {"vda"};
  EXPECT_FALSE(look_up(other_args).has_value());

  CompileRequest other_option = request(work_);
  other_option.stap_options = {"-D", "MAXACTION=10000"};
  EXPECT_FALSE(look_up(other_option).has_value());

  CompileRequest other_kernel = request(work_);
  other_kernel.kernel_release = "6.1.0-99-fake";
  EXPECT_FALSE(look_up(other_kernel).has_value());
  EXPECT_EQ(compiles(), 1);
}

TEST_F(ModuleCacheTest, ANewStapVersionMisses) {
  ASSERT_TRUE(compile_then_look_up(request(work_), request(work_)).has_value());
  write_file(stap_.bin() / "version", "Systemtap 4.9 (fake)\n");
  EXPECT_FALSE(look_up(request(other_work_)).has_value());
}

// A traced program rebuilt has its probes elsewhere: the module compiled against the old one
// would arm the wrong addresses.
TEST_F(ModuleCacheTest, AProgramTheScriptNamesByPathIsInTheKeyByItsTime) {
  TempDir programs;
  const std::string program = programs / "traced";
  write_file(program, "v1", 0755);
  CompileRequest first = request(work_);
  first.script_text = "probe process(\"" + program + "\").function(\"main\") { }\n";
  ASSERT_TRUE(compile_then_look_up(first, first).has_value());

  fs::last_write_time(program, fs::last_write_time(program) + std::chrono::seconds(5));
  EXPECT_FALSE(look_up(first).has_value());
}

TEST_F(ModuleCacheTest, TheBlockHasherTheTapsetProbesIsInTheKey) {
  TempDir programs;
  const std::string hasher = programs / "block_hasher";
  write_file(hasher, "v1", 0755);
  CompileRequest first = request(work_);
  first.block_hasher_exe = hasher;
  ASSERT_TRUE(compile_then_look_up(first, first).has_value());

  CompileRequest elsewhere = first;
  elsewhere.block_hasher_exe = programs / "other_block_hasher";
  EXPECT_FALSE(look_up(elsewhere).has_value());
  fs::last_write_time(hasher, fs::last_write_time(hasher) + std::chrono::seconds(5));
  EXPECT_FALSE(look_up(first).has_value());
}

// -v asks to see stap's passes: they are only seen when stap runs.
TEST_F(ModuleCacheTest, WithStapsVerboseOptionStapAlwaysRuns) {
  CompileRequest verbose = request(work_);
  verbose.stap_options = {"-v"};
  compile(verbose);
  verbose.work_dir = other_work_.path();
  EXPECT_FALSE(look_up(verbose).has_value());
}

TEST_F(ModuleCacheTest, NoCacheDirMeansNoCache) {
  CompileRequest uncached = request(work_);
  uncached.module_cache_dir.clear();
  compile(uncached);
  EXPECT_TRUE(fs::is_empty(cache_.path()));
  EXPECT_FALSE(look_up(uncached).has_value());
}

// A cache that cannot be written (a read-only place, a full disk) costs the next run its speed,
// never this run: the module is compiled and used, and iotap says why it was not kept.
TEST_F(ModuleCacheTest, ACacheThatCannotBeWrittenIsAWarningAndTheRunGoesOn) {
  CompileRequest request = this->request(work_);
  request.module_cache_dir = "/proc/iotap-module-cache";  // not a place a directory can be made
  ::testing::internal::CaptureStderr();
  const CompiledModule compiled = compile(request);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(compiled.path, work_ / "iotap.ko");
  EXPECT_TRUE(std::filesystem::is_regular_file(compiled.path));
  EXPECT_NE(err.find("iotap: the module is not cached: cannot create "
                     "'/proc/iotap-module-cache/"),
            std::string::npos)
      << err;
}

ModuleInputs inputs(const TempDir& tapsets, const TempDir& runtime, const TempDir& tree) {
  return {"stap 4.8", {"stap", "-p4"},  "s.stp",        "probe begin {}",
          "",         {tapsets.path()}, runtime.path(), tree.path()};
}

TEST(ModuleCacheKey, TapsetTextRuntimeFilesAndTheKernelTreeAreInTheKey) {
  TempDir tapsets;
  TempDir runtime;
  TempDir tree;
  write_file(tapsets / "block.stp", "probe a = kernel.trace(\"x\") {}\n");
  write_file(runtime / "runtime.h", "/* runtime */\n");
  write_file(tree / "System.map", "ffffffff81000000 T _text\n");
  const std::string key = module_cache_key(inputs(tapsets, runtime, tree));
  EXPECT_EQ(module_cache_key(inputs(tapsets, runtime, tree)), key);

  write_file(tapsets / "block.stp", "probe a = kernel.trace(\"y\") {}\n");
  const std::string tapset_changed = module_cache_key(inputs(tapsets, runtime, tree));
  EXPECT_NE(tapset_changed, key);

  fs::last_write_time(runtime / "runtime.h",
                      fs::last_write_time(runtime / "runtime.h") + std::chrono::seconds(5));
  const std::string runtime_changed = module_cache_key(inputs(tapsets, runtime, tree));
  EXPECT_NE(runtime_changed, tapset_changed);

  write_file(tree / "System.map", "ffffffff81000000 T _text\nffffffff81000010 T other\n");
  EXPECT_NE(module_cache_key(inputs(tapsets, runtime, tree)), runtime_changed);
}

TEST(ModuleCacheKey, QuotedAbsolutePathsAreFound) {
  EXPECT_EQ(
      quoted_absolute_paths("probe process(\"/usr/bin/ls\").mark(\"x\") { printf(\"/%d\\n\", 1) }\n"
                            "@define exe %( \"/opt/a b/prog\" %)\n"),
      (std::vector<std::string>{"/usr/bin/ls", "/%d\\n", "/opt/a b/prog"}));
  EXPECT_TRUE(quoted_absolute_paths("printf(\"%s\\n\", \"/unterminated\n").empty());
}

TEST(ModuleCacheDir, TheEnvironmentChoosesOrTurnsItOff) {
  ::setenv("IOTAP_MODULE_CACHE", "off", 1);
  EXPECT_EQ(module_cache_dir("/build/cache/modules"), "");
  ::setenv("IOTAP_MODULE_CACHE", "/tmp/elsewhere", 1);
  EXPECT_EQ(module_cache_dir("/build/cache/modules"), "/tmp/elsewhere");
  ::unsetenv("IOTAP_MODULE_CACHE");
  EXPECT_EQ(module_cache_dir("/build/cache/modules"), "/build/cache/modules");
}

TEST(ModuleCacheStore, TheLeastRecentlyUsedEntriesGoFirst) {
  TempDir cache;
  TempDir work;
  const std::string module = work / "iotap.ko";
  write_file(module, "ko");
  const ModuleCache modules(cache.path());
  const auto store = [&](const std::string& key) {
    modules.store(key, {module, "/tmp/w/iotap.stp", ""}, 2);
  };
  store("aaaa");
  fs::last_write_time(cache / "aaaa",
                      fs::last_write_time(cache / "aaaa") - std::chrono::seconds(20));
  store("bbbb");
  fs::last_write_time(cache / "bbbb",
                      fs::last_write_time(cache / "bbbb") - std::chrono::seconds(10));
  ASSERT_TRUE(modules.find("aaaa").has_value());  // now the most recently used
  store("cccc");
  EXPECT_TRUE(modules.find("aaaa").has_value());
  EXPECT_FALSE(modules.find("bbbb").has_value());
  EXPECT_TRUE(modules.find("cccc").has_value());
  // Storing a key that is there already keeps the one entry.
  store("cccc");
  EXPECT_EQ(std::distance(fs::directory_iterator(cache.path()), fs::directory_iterator()), 2);
}

}  // namespace
}  // namespace iotap::stap
