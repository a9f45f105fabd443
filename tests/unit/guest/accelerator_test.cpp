// KVM runs the guest only where the host has hardware virtualization; a /dev/kvm that opens
// without it (kvm-pvm in a sandbox) hangs a stock guest kernel, so TCG runs it there.
#include "accelerator.h"

#include <gtest/gtest.h>

namespace iotap::guest {
namespace {

constexpr std::string_view kIntelWithVtx =
    "processor\t: 0\nvendor_id\t: GenuineIntel\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic vmx ssse3 sse4_1 hypervisor\n"
    "bugs\t\t: spectre_v1\n\nprocessor\t: 1\n";
constexpr std::string_view kAmdWithSvm = "flags\t\t: fpu vme svm lahf_lm\n";
// A sandbox's vCPU: no vmx or svm, though /dev/kvm (kvm-pvm) opens.
constexpr std::string_view kNoVirtualization =
    "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor\n"
    "vmx flags\t: vnmi preemption_timer\n";

TEST(Accelerator, KvmWhenDevKvmOpensAndTheCpuHasVmxOrSvm) {
  EXPECT_EQ(choose_accelerator(kIntelWithVtx, true), Accelerator::kKvm);
  EXPECT_EQ(choose_accelerator(kAmdWithSvm, true), Accelerator::kKvm);
}

TEST(Accelerator, TcgWhenDevKvmOpensWithoutHardwareVirtualization) {
  EXPECT_EQ(choose_accelerator(kNoVirtualization, true), Accelerator::kTcg);
  EXPECT_EQ(choose_accelerator("", true), Accelerator::kTcg);
}

TEST(Accelerator, TcgWhenDevKvmDoesNotOpen) {
  EXPECT_EQ(choose_accelerator(kIntelWithVtx, false), Accelerator::kTcg);
}

TEST(Accelerator, AFlagOnlyCountsAsAWholeWord) {
  EXPECT_EQ(choose_accelerator("flags\t\t: fpu vmxx svm2 avx\n", true), Accelerator::kTcg);
}

}  // namespace
}  // namespace iotap::guest
