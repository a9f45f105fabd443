// Naming kernel addresses from a target's /proc/kallsyms. The sample lines are the guest
// kernel's own (6.1.0-56-cloud-amd64, read in a guest run).
#include "iotap/symbols/kernel_symbols.h"

#include <gtest/gtest.h>

#include "iotap/symbols/kernel_stack.h"

namespace iotap::symbols {
namespace {

constexpr const char* kKallsyms =
    "ffffffffaa13d320 T bio_endio\n"
    "ffffffffaa13d4a0 t bio_put\n"
    "ffffffffaa13d000 T submit_bio_noacct_nocheck\n"
    "ffffffffaa13e000 D some_data\n"
    "ffffffffc038c3d0 t raid0_map_submit_bio\t[raid0]\n"
    "ffffffffc0524150 t raid0_make_request\t[raid0]\n"
    "ffffffffc04ba700 t _stp_stack_kernel_get\t[iotap]\n"
    "not a kallsyms line\n";

TEST(KernelSymbols, NamesAnAddressInsideAFunction) {
  const auto table = KernelSymbols::parse(kKallsyms);
  EXPECT_EQ(table.size(), 6U);  // the data symbol and the junk line are not functions
  const auto symbol = table.lookup(0xffffffffaa13d320 + 0x1c);
  ASSERT_TRUE(symbol);
  EXPECT_EQ(symbol->name, "bio_endio");
  EXPECT_EQ(symbol->offset, 0x1cU);
  EXPECT_TRUE(symbol->module.empty());
  EXPECT_EQ(table.describe(0xffffffffaa13d000), "submit_bio_noacct_nocheck+0x0");
}

TEST(KernelSymbols, NamesModuleFunctionsWithTheirModule) {
  const auto table = KernelSymbols::parse(kKallsyms);
  EXPECT_EQ(table.describe(0xffffffffc0524150 + 0x42), "raid0_make_request+0x42 [raid0]");
}

TEST(KernelSymbols, LeavesUnknownAddressesAsNumbers) {
  const auto table = KernelSymbols::parse(kKallsyms);
  EXPECT_FALSE(table.lookup(0xffffffff80000000));  // below every symbol
  // Far past the last symbol of the table: not part of it.
  EXPECT_EQ(table.describe(0xffffffffc1000000), "0xffffffffc1000000");
}

TEST(KernelSymbols, RewritesAddressesInText) {
  const auto table = KernelSymbols::parse(kKallsyms);
  EXPECT_EQ(table.symbolize_text("queue: 0xffffffffaa13d330 0xffffffffc0524151 x\n"),
            "queue: bio_endio+0x10 raid0_make_request+0x1 [raid0] x\n");
  // Not an address: too short, part of a longer word, or user space.
  EXPECT_EQ(table.symbolize_text("0xffffaa 0xffffffffaa13d330ab a0xffffffffaa13d330 0x7ffc"),
            "0xffffaa 0xffffffffaa13d330ab a0xffffffffaa13d330 0x7ffc");
}

// print_backtrace() lines carry stap's own names: the address column stays an address (it
// read "bio_endio+0x10 : bio_endio+0x10/0x40 [kernel]"), where stap knew only the module too.
TEST(KernelSymbols, LeavesFramesStapNamedAlone) {
  const auto table = KernelSymbols::parse(kKallsyms);
  const std::string stap_lines =
      " 0xffffffffaa13d330 : bio_endio+0x10/0x40 [kernel]\n"
      " 0xffffffffc0524151 : raid0_make_request+0x1/0x90 [raid0] (inexact)\n"
      " 0xffffffffc0524151 [raid0+0x1/0x90]\n";
  EXPECT_EQ(table.symbolize_text(stap_lines), stap_lines);
  // The same addresses on their own (backtrace()'s words) are still named.
  EXPECT_EQ(table.symbolize_text(" 0xffffffffaa13d330 :0xffffffffc0524151\n"),
            " bio_endio+0x10 :raid0_make_request+0x1 [raid0]\n");
}

TEST(KernelSymbols, AModulesExtentBoundsItsLastFunction) {
  // The probe module loads after the table is read: its code must not read as raid0's.
  const auto table = KernelSymbols::parse(std::string(kKallsyms) +
                                          "raid0 24576 1 - Live 0xffffffffc0520000\n"
                                          "iotap 65536 1 - Live 0xffffffffc0530000 (OE)\n");
  EXPECT_EQ(table.describe(0xffffffffc0524160), "raid0_make_request+0x10 [raid0]");
  EXPECT_FALSE(table.lookup(0xffffffffc0520000 + 24576 + 0x100));
}

TEST(KernelSymbols, SectionMarkersGiveWayToTheFunctionAtTheirAddress) {
  const auto table = KernelSymbols::parse(
      "ffffffffaa000000 T io_schedule_timeout\nffffffffaa000000 T __sched_text_start\n"
      "ffffffffaa000100 T schedule\n");
  EXPECT_EQ(table.describe(0xffffffffaa00004c), "io_schedule_timeout+0x4c");
}

TEST(KernelSymbols, HiddenAddressesAreRecognised) {
  EXPECT_TRUE(addresses_hidden("0000000000000000 T bio_endio\n0000000000000000 t bio_put\n"));
  EXPECT_FALSE(addresses_hidden(kKallsyms));
  EXPECT_EQ(KernelSymbols::parse("0000000000000000 T bio_endio\n").size(), 0U);
}

TEST(KernelStack, DropsTheProbeModulesOwnFramesAndKeepsUnknownOnes) {
  const auto table = KernelSymbols::parse(kKallsyms);
  const auto addresses =
      parse_backtrace("0xffffffffc04ba720 0xffffffffaa13d330 junk 0xffffffff80000000 \n");
  ASSERT_EQ(addresses.size(), 3U);
  const auto frames = symbolize_backtrace(table, addresses);
  ASSERT_EQ(frames.size(), 2U);
  EXPECT_EQ(frames[0].function, "bio_endio");
  EXPECT_TRUE(frames[1].function.empty());
  EXPECT_EQ(frames[1].address, 0xffffffff80000000U);
}

}  // namespace
}  // namespace iotap::symbols
