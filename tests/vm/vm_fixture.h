#pragma once
// The one fixture of the vm tier's gtest cases: the ones a runtime case (tests/runtime,
// tests/README.md) cannot say, because they run iotap more than once, compute their ground truth,
// prepare the host or signal a run. A suite adds helpers to it (or names it with `using`), never
// its own SetUp or TearDown.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "iotap/util/temp_dir.h"
#include "iotap_cli.h"

namespace iotap::test {

class VmFixture : public ::testing::Test {
 protected:
  // A vm case that cannot boot a guest fails; it never passes by skipping.
  void SetUp() override { require_guest_tools(); }
  // Nothing left behind: every temp file and socket iotap made is gone.
  void TearDown() override {
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(tmp_.path()))
      left.push_back(entry.path().string());
    EXPECT_TRUE(left.empty()) << "iotap left behind in its TMPDIR: "
                              << (left.empty() ? "" : left[0]);
  }
  // `iotap ARGS...` with TMPDIR at tmp_ and `extra_env` ("NAME=value") added.
  Captured iotap(const std::vector<std::string>& args,
                 const std::vector<std::string>& extra_env = {}) {
    return run_iotap(args, tmp_.path(), extra_env);
  }

  TempDir tmp_{"iotap-vm-test"};
};

}  // namespace iotap::test
