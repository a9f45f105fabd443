#include "iotap/callgraph/debug_info_check.h"

#include <gtest/gtest.h>

namespace iotap::callgraph {
namespace {

TEST(DebugInfoCheck, BlockHasherAsBuiltCanBeTraced) {
  EXPECT_EQ(missing_debug_info(BLOCK_HASHER), "");
}

TEST(DebugInfoCheck, AStrippedCopySaysToRebuildUnstripped) {
  const std::string message = missing_debug_info(BLOCK_HASHER_STRIPPED);
  EXPECT_NE(message.find("is stripped (no .symtab): rebuild it with -g and without stripping"),
            std::string::npos)
      << message;
}

TEST(DebugInfoCheck, ACopyWithoutDebugInfoSaysToRebuildWithDashG) {
  const std::string message = missing_debug_info(BLOCK_HASHER_NO_DEBUG_INFO);
  EXPECT_NE(message.find("has no debug info (no .debug_info): rebuild it with -g"),
            std::string::npos)
      << message;
}

TEST(DebugInfoCheck, NotAProgram) {
  EXPECT_NE(missing_debug_info(NOT_ELF_FILE).find("is not an ELF file"), std::string::npos);
  EXPECT_NE(missing_debug_info("/nonexistent").find("cannot be opened"), std::string::npos);
}

}  // namespace
}  // namespace iotap::callgraph
