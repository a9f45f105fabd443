#pragma once
// The guest kernel's build tree as stap should see it: Debian's headers plus a real System.map.
//
// stap resolves kernel functions at compile time from <build tree>/System.map: kprobe.function()
// globs, and whether the kernel has uretprobes at all (arch_uretprobe_hijack_return_addr), which
// every .return probe on a user function needs. Debian's System.map is a stub (the real one is in
// the -dbg package: 283 MB to download, 1.8 GB installed). So iotap boots the guest once, reads its
// /proc/kallsyms, and keeps a copy of the headers' tree (symbolic links) with that table as
// System.map. Only offsets from _stext matter to stap (it relocates at run time), so KASLR does
// not. With the -dbg package installed, its System.map serves instead, and its DWARF with it.
//
// The trees are the same for every build and install of iotap, and stap keys its cache by the
// tree's path ("Kernel Build Tree Path"), so they live beside stap's cache, at one path each:
// stap_state_dir()/iotap-kernel (util/data_paths.h).
#include <functional>
#include <string>

#include "iotap/runner/kernel_debuginfo.h"

namespace iotap::runner {

// The tree's path, made on first use: `read_kallsyms` boots the guest and returns its
// /proc/kallsyms. Safe against two iotap processes making it at once (the last rename wins).
std::string guest_kernel_tree(const std::string& release, const std::string& cache_dir,
                              const std::function<std::string()>& read_kallsyms);

// The same tree made from the kernel's -dbg package instead (no guest boot): its System.map,
// vmlinux with DWARF and the modules' debuginfo, which stap finds under the tree it is given.
// A tree of its own (kernel-tree-RELEASE-dbg), so that installing the package switches trees.
std::string debuginfo_kernel_tree(const std::string& release, const std::string& cache_dir,
                                  const KernelDebuginfo& debuginfo);

// What stap compiles against for the guest (`stap -r`). With the guest kernel's -dbg package
// installed, every script gets the tree made from it (its System.map and DWARF: kernel.function,
// $vars, @cast, return probes), so that all of them share one stap cache entry. Without it, a
// script that needs the kernel's symbol table (`needs_symbols`) gets the tree made from the
// guest's kallsyms (made with `read_kallsyms` the first time), and the rest the bare release
// (tracepoints and USDT probes need neither). The trees go under `trees_dir`:
// guest_kernel_trees_dir() but in tests.
std::string guest_compile_kernel(const std::string& release, bool needs_symbols,
                                 const std::function<std::string()>& read_kallsyms,
                                 const std::string& trees_dir);

// stap_state_dir() + "/iotap-kernel"; the build's or install's own cache (data_paths().cache)
// when there is no stap directory (no $HOME).
std::string guest_kernel_trees_dir();

// vmlinux's lines of a /proc/kallsyms text ("ADDRESS TYPE NAME", no "[module]"), as System.map.
std::string system_map_from_kallsyms(const std::string& kallsyms);

}  // namespace iotap::runner
