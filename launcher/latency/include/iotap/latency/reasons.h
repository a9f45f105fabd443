#pragma once
// Why a thread slept, named from the kernel path it slept in, the way latencytop (and
// SystemTap's latencytap.stp after it) did: a table of kernel functions, each with a reason and
// a priority; of the functions found in the sleep's stack, the highest priority names it (a page
// fault taken inside a read is a page fault; a read is a read even though it waits in
// io_schedule()).
#include <string>
#include <string_view>
#include <vector>

#include "iotap/symbols/kernel_stack.h"

namespace iotap::latency {

struct Reason {
  std::string text;      // "Reading from file"
  std::string function;  // the frame that decided it ("vfs_read"); empty when none did
};

// A stack no table entry matches gets "Other: F", F being its first function outside the
// scheduler itself, or "Unknown" when it has no named frame at all.
Reason classify(const std::vector<symbols::Frame>& frames);

}  // namespace iotap::latency
