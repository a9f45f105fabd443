#pragma once
// Programs too big for the guest's initramfs (bpftrace and its ~200 MB of LLVM), on a read-only
// ext4 image that the guest mounts at /tools (VmRun::tools_image). Built with `mke2fs -d` from a
// staging directory: no loop device, no root. Cached in the build tree's cache, keyed by every
// file's path, size and time.
#include <string>
#include <vector>

namespace iotap::guest {

// The image holding `programs` and their interpreter and libraries, each at its host path under
// /tools, and for each program a launcher /tools/bin/NAME that runs it with its libraries (the
// program's own name, e.g. /tools/bin/bpftrace). Builds it first if the cache has none; throws
// UserError when a program is missing or mke2fs fails. `more_files` are copied too, at their
// host paths under /tools, with no launcher and no libraries of their own (PostgreSQL's share
// files and modules: guest/postgres_guest.h gives their libraries as files too).
std::string tools_image(const std::vector<std::string>& programs, const std::string& cache_dir,
                        const std::vector<std::string>& more_files = {});

}  // namespace iotap::guest
