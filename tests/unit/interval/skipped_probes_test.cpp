#include "iotap/interval/skipped_probes.h"

#include <gtest/gtest.h>

namespace iotap::interval {
namespace {

TEST(SkippedProbes, ReadsSystemTapsClosingWarning) {
  // As staprun printed it after a guest run of examples/top.stp.
  EXPECT_EQ(skipped_probes_in("WARNING: Number of errors: 0, skipped probes: 1\n"), 1U);
  EXPECT_EQ(skipped_probes_in("WARNING: Number of errors: 3, skipped probes: 120"), 120U);
}

TEST(SkippedProbes, IgnoresOtherLines) {
  EXPECT_FALSE(skipped_probes_in("WARNING: Kernel function symbol table missing"));
  EXPECT_FALSE(skipped_probes_in("thread 0: skipped probes: 3"));  // not stap's warning
  EXPECT_FALSE(skipped_probes_in("WARNING: skipped probes: none"));
  EXPECT_FALSE(skipped_probes_in(""));
}

}  // namespace
}  // namespace iotap::interval
