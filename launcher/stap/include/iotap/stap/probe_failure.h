#pragma once
// Why stap could not resolve a kernel probe point, said so that a user can act on it. stap's
// own "no match" does not say whether the kernel's debuginfo is missing, the function is not in
// this kernel, or it is inlined; iotap knows which debuginfo it compiled with, and which kernel
// functions went away in favour of what.
#include <string>
#include <string_view>

namespace iotap::stap {

// What iotap knows about the kernel it compiled for.
struct KernelDebugState {
  std::string release;       // "6.1.0-56-cloud-amd64"
  bool debuginfo = false;    // its DWARF was found (or debuginfod may serve it)
  std::string install_hint;  // how to get it, when it was not: "apt-get install ..."
};

// Lines ("iotap: ...", each ending in a newline) that explain the kernel probe failures in
// stap's stderr text `diagnostics`; empty when it shows none. stap's lines stay as they are:
// this only adds.
std::string explain_probe_failure(std::string_view diagnostics, const KernelDebugState& kernel);

// What to probe instead of a kernel function that newer kernels no longer have; empty when
// iotap knows of nothing. generic_make_request -> submit_bio or block:block_bio_queue.
std::string_view replacement_for(std::string_view function);

}  // namespace iotap::stap
