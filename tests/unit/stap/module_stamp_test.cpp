// A module saved on one machine and run on another (stap/module_stamp.h, stap/module_info.h): the
// stamp in its name moves with what it was compiled from and with nothing else, and its .modinfo
// reads back.
#include "iotap/stap/module_stamp.h"

#include <gtest/gtest.h>

#include <string>

#include "iotap/stap/module_info.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::stap {
namespace {

using namespace std::string_literals;

class ModuleStampTest : public ::testing::Test {
 protected:
  ModuleStampTest() { write_file(program_, "build 1"); }
  [[nodiscard]] CompileRequest request() const {
    return {"probe process(\"" + program_ + "\").mark(\"read_start\") { }\n",
            "/usr/share/iotap/examples/events.stp",
            "6.1.0-56-cloud-amd64",
            "",
            "/tmp/iotap-run.1",
            {"64"},
            "",
            {"-D", "MAXMAPENTRIES=4096"}};
  }
  TempDir dir_{"iotap-stamp-test"};
  std::string program_ = dir_ / "block_hasher";
};

TEST_F(ModuleStampTest, TheSameRunGetsTheSameStampWhereverItCompilesOrRuns) {
  CompileRequest elsewhere = request();
  // Where the work dir is, which kernel tree or runtime: the compile's business, not the run's.
  elsewhere.work_dir = "/tmp/iotap-run.2";
  elsewhere.kernel_release = "/root/.systemtap/iotap-kernel/6.1.0-56-cloud-amd64";
  elsewhere.runtime_dir = "/usr/share/iotap/stap-runtime";
  // iotap installed under another prefix: its script by another path, the same name.
  elsewhere.script_name = "/opt/iotap/share/iotap/examples/events.stp";
  EXPECT_EQ(module_stamp(request()), module_stamp(elsewhere));
}

TEST_F(ModuleStampTest, AnotherScriptArgumentOrOptionMovesTheScriptPartOnly) {
  const ModuleStamp base = module_stamp(request());
  CompileRequest text = request();
  text.script_text += "probe end { }\n";
  CompileRequest args = request();
  args.script_args = {"128"};
  CompileRequest options = request();
  options.stap_options = {"-D", "MAXMAPENTRIES=8192"};
  CompileRequest name = request();
  name.script_name = "latency.stp";
  CompileRequest interrupts = request();
  interrupts.interrupts_off = !interrupts.interrupts_off;
  for (const CompileRequest& other : {text, args, options, name, interrupts}) {
    const ModuleStamp stamp = module_stamp(other);
    EXPECT_NE(stamp.script, base.script);
    EXPECT_EQ(stamp.programs, base.programs);
  }
}

TEST_F(ModuleStampTest, AnotherBuildOfTheProgramMovesTheProgramPartOnly) {
  const ModuleStamp before = module_stamp(request());
  write_file(program_, "build 2");
  const ModuleStamp after = module_stamp(request());
  EXPECT_EQ(after.script, before.script);
  EXPECT_NE(after.programs, before.programs);
}

TEST_F(ModuleStampTest, TheNameCarriesTheStampAndNothingElseReadsAsOne) {
  const ModuleStamp stamp = module_stamp(request());
  const std::string name = stamped_module_name(stamp);
  EXPECT_EQ(name.size(), 31U);  // a module name may have 55
  EXPECT_TRUE(name.starts_with("iotap_")) << name;
  EXPECT_EQ(stamp_in_module_name(name), stamp);
  for (const char* other : {"iotap", "iotap_", "iotap_0123456789abcdef", "xfs",
                            "iotap_0123456789ABCDEF_01234567", "iotap_0123456789abcdef-01234567",
                            "iotap_0123456789abcdef_012345678", "iotap_0123456789abcde_01234567"})
    EXPECT_FALSE(stamp_in_module_name(other).has_value()) << other;
}

TEST_F(ModuleStampTest, ASavedModuleIsTakenOnlyForTheRunItWasSavedFor) {
  const ModuleStamp here = module_stamp(request());
  const auto problem = [&here](const std::string& name) {
    return saved_module_problem("m.ko", {name, "6.1.0-56-cloud-amd64 SMP"}, here);
  };
  EXPECT_EQ(problem(stamped_module_name(here)), "");
  EXPECT_EQ(problem("iotap"),
            "m.ko is a module named 'iotap', not one --save-module made: save one with "
            "--save-module FILE on a machine with stap, using this command's options");
  EXPECT_EQ(problem(stamped_module_name({"0123456789abcdef", here.programs})),
            "m.ko was saved for another script or options than this run's (another verb, script, "
            "script arguments, -c program path, stap option or iotap version): save it again "
            "with this command's options");
  EXPECT_EQ(problem(stamped_module_name({here.script, "01234567"})),
            "m.ko was saved from another build of the traced program than this machine's (its "
            "USDT probes would be misplaced): copy that build here, or save the module again "
            "from this one");
}

TEST(ModuleInfoTest, ModinfoEntriesAreReadPastTheirPadding) {
  const ModuleInfo info = parse_modinfo(
      "license=GPL\0\0\0description=systemtap-generated probe\0name=iotap\0"
      "vermagic=6.1.0-56-cloud-amd64 SMP preempt mod_unload modversions \0"s);
  EXPECT_EQ(info.name, "iotap");
  EXPECT_EQ(info.vermagic, "6.1.0-56-cloud-amd64 SMP preempt mod_unload modversions ");
  EXPECT_EQ(info.release(), "6.1.0-56-cloud-amd64");
  EXPECT_EQ(parse_modinfo("").name, "");
}

TEST(ModuleInfoTest, AnObjectWithModinfoIsAModuleAndOtherFilesAreNot) {
  const ModuleInfo info = read_module_info(FAKE_MODULE);
  EXPECT_EQ(info.name, "iotap_0123456789abcdef_01234567");
  EXPECT_EQ(info.release(), "5.10.0-99-amd64");
  const TempDir dir("iotap-modinfo-test");
  write_file(dir / "notes.txt", "not ELF");
  for (const std::string& path : {dir / "notes.txt", std::string(TEST_PROGRAM)}) {
    try {
      read_module_info(path);
      ADD_FAILURE() << path << " was read as a module";
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("is not a kernel module"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_THROW(read_module_info(dir / "absent.ko"), UserError);
}

}  // namespace
}  // namespace iotap::stap
