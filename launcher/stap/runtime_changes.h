#pragma once
// The runtime changes, in two lists: those 6.1 itself needs (runtime_changes.cpp) and those for
// kernels newer than SystemTap 4.8 knows (runtime_changes_newer_kernels.cpp). runtime_changes()
// applies the first, then the second.
#include <vector>

#include "iotap/stap/runtime_adaptation.h"

namespace iotap::stap {

std::vector<RuntimeChange> changes_for_newer_kernels();
std::vector<RuntimeChange> tapset_changes_for_newer_kernels();

}  // namespace iotap::stap
