// The traced program's lines: on stderr, prefixed with its name (session/program_output.h).
#include "iotap/session/program_output.h"

#include <gtest/gtest.h>

namespace iotap::session {
namespace {

TEST(ProgramOutput, PrefixIsTheProgramsFileName) {
  EXPECT_EQ(program_output_prefix("/build/workloads/block_hasher/block_hasher"), "[block_hasher] ");
  EXPECT_EQ(program_output_prefix(""), "[program] ");
}

TEST(ProgramOutput, EachLineGoesToStderrPrefixed) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  print_program_line("[block_hasher] ", "total: 16 blocks\n");
  print_program_line("[block_hasher] ", "no newline");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "[block_hasher] total: 16 blocks\n[block_hasher] no newline\n");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

}  // namespace
}  // namespace iotap::session
