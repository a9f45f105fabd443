// iotap run as a stap front-end, for real in the guest: the script's arguments ($1, @1, after
// --), -G globals set when the module loads, -v reaching stap and staprun, -D macros.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"

namespace iotap::test {
namespace {

class ScriptArgsTest : public ::testing::Test {
 protected:
  void SetUp() override { require_guest_tools(); }
  void TearDown() override {
    EXPECT_TRUE(std::filesystem::is_empty(tmp_.path())) << "iotap left files in its temp directory";
  }
  TempDir tmp_{"iotap-script-args-test"};
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Arguments and options mixed as stap takes them; after `--`, "-x" is the script's third
// argument, not iotap's -x (nor stap's). -v shows stap's passes and staprun's own messages.
TEST_F(ScriptArgsTest, ArgumentsGlobalsAndVerboseReachTheScript) {
  const std::string script = VM_SCRIPTS_DIR "/scripts/args.stp";
  const auto run = run_iotap({"run", script, "vda", "21", "-G", "greeting=hello", "-v", "--target",
                              "vm", "-c", "/bin/true", "--", "-x"},
                             tmp_.path());
  ASSERT_EQ(run.status.code, 0) << run.err;
  EXPECT_EQ(run.out, "at1=vda\ntwice2=42\nat3=-x\ncount=3\ngreeting=hello\n") << run.err;
  EXPECT_TRUE(contains(run.err, "Pass 2: analyzed script")) << run.err;  // stap -v
  EXPECT_TRUE(contains(run.err, "staprun:")) << run.err;                 // staprun -v, in the guest
}

// A begin probe over stap's default MAXACTION fails with stap's own message, naming the user's
// script; -D MAXACTION=100000 lets it run.
TEST_F(ScriptArgsTest, DefineRaisesMaxaction) {
  const std::string script = VM_SCRIPTS_DIR "/scripts/maxaction.stp";
  const auto limited = run_iotap({"run", script, "--target", "vm", "-c", "/bin/true"}, tmp_.path());
  EXPECT_NE(limited.status.code, 0) << limited.err;
  EXPECT_TRUE(contains(limited.err, "MAXACTION exceeded")) << limited.err;
  EXPECT_TRUE(contains(limited.err, "maxaction.stp:")) << limited.err;
  EXPECT_FALSE(contains(limited.out, "total=")) << limited.out;

  const auto raised = run_iotap(
      {"run", script, "-D", "MAXACTION=100000", "--target", "vm", "-c", "/bin/true"}, tmp_.path());
  ASSERT_EQ(raised.status.code, 0) << raised.err;
  EXPECT_EQ(raised.out, "total=49995000\n") << raised.err;
}

}  // namespace
}  // namespace iotap::test
