// iotap's module cache, for real in the guest: a second run of a script loads the module the
// first one compiled (no stap), counts the same reads, and its run-time errors still name the
// user's script (the cached module names the copy it was compiled from).
#include <gtest/gtest.h>

#include <string>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"
#include "vm_fixture.h"

namespace iotap::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class ModuleCacheTest : public VmFixture {
 protected:
  Captured run_script() {
    return iotap({"run", script_, "--target", "vm", "--stack", "ram", "-c",
                  "block_hasher -d __DEV__ -b 65536 -t 2 -n 16"},
                 {"IOTAP_MODULE_CACHE=" + cache_.path()});
  }

  TempDir cache_{"iotap-module-cache"};
  TempDir scripts_{"iotap-module-cache-scripts"};
  std::string script_ = scripts_ / "count_reads.stp";
};

TEST_F(ModuleCacheTest, ASecondRunLoadsTheCachedModuleWithTheSameResultsAndMessages) {
  // The end probe divides by zero on purpose: a run-time error, after the count is printed.
  // The count is an aggregate, as stap's examples count in hot probes: `reads++` takes the
  // global's write lock, and with stap's own interrupt setting (a user's script gets it) two
  // threads' probes can time out on that lock under TCG and be skipped (CI saw reads=15).
  write_file(script_,
             "global reads, zero\n"
             "probe block_hasher.read_start { reads <<< 1 }\n"
             "probe end {\n"
             "  printf(\"reads=%d\\n\", @count(reads))\n"
             "  printf(\"%d\\n\", @count(reads) / zero)\n"
             "}\n");
  const Captured first = run_script();
  EXPECT_TRUE(contains(first.err, "compiling count_reads.stp")) << first.err;
  EXPECT_FALSE(contains(first.err, "module from cache")) << first.err;

  const Captured second = run_script();
  EXPECT_TRUE(contains(second.err, "count_reads.stp: module from cache (kernel " GUEST_KERNEL ")"))
      << second.err;
  EXPECT_FALSE(contains(second.err, "compiling")) << second.err;

  for (const Captured* run : {&first, &second}) {
    EXPECT_TRUE(contains(run->out, "reads=16\n")) << run->out << run->err;
    EXPECT_TRUE(contains(run->err, "division by 0")) << run->err;
    EXPECT_TRUE(contains(run->err, "at " + script_ + ":5:")) << run->err;
    EXPECT_FALSE(contains(run->err, "iotap.stp")) << run->err;
  }
}

// A changed script is a new module: the cache never hands back the old one.
TEST_F(ModuleCacheTest, AChangedScriptIsCompiledAgain) {
  write_file(script_, "probe block_hasher.read_start { printf(\"one\\n\"); exit() }\n");
  const Captured first = run_script();
  ASSERT_TRUE(contains(first.out, "one\n")) << first.out << first.err;
  write_file(script_, "probe block_hasher.read_start { printf(\"two\\n\"); exit() }\n");
  const Captured second = run_script();
  EXPECT_TRUE(contains(second.err, "compiling count_reads.stp")) << second.err;
  EXPECT_TRUE(contains(second.out, "two\n")) << second.out << second.err;
  EXPECT_FALSE(contains(second.out, "one\n")) << second.out;
}

}  // namespace
}  // namespace iotap::test
