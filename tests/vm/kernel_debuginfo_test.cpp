// Scripts that need the guest kernel's DWARF (its -dbg package), run for real in the guest:
// kernel.function and module().function probes with $bio fields, @cast to kernel types, the
// standard tapsets. (What iotap says when a kernel probe does not resolve is a runtime case:
// tests/runtime/debuginfo.)
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "vm_fixture.h"

namespace iotap::test {
namespace {

// "NAME v1 k2 v2 ...": each line's first word, then its words, by name.
std::map<std::string, std::vector<std::string>> lines_by_first_word(const std::string& text) {
  std::map<std::string, std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string word; words >> word;) fields.push_back(word);
    if (fields.size() > 1) {
      const std::string key = fields[0] == "cast_disk" ? fields[0] + " " + fields[1] : fields[0];
      lines[key] = fields;
    }
  }
  return lines;
}

using KernelDebuginfoTest = VmFixture;

TEST_F(KernelDebuginfoTest, DwarfProbesAndStandardTapsetsFireOnReadsThroughRaid0) {
  const auto version = iotap({"--version"});
  ASSERT_NE(version.out.find("debuginfo:    /"), std::string::npos)
      << "this case needs the guest kernel's -dbg package (./setup.sh installs it):\n"
      << version.out;
  const std::string script = VM_SCRIPTS_DIR "/kernel_debuginfo.stp";
  const auto run = iotap({"run", script, "--target", "vm", "--stack", "raid0(ram*2)", "-c",
                          "block_hasher -d __DEV__ -b 65536 -t 2 -n 32 --direct"});
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto lines = lines_by_first_word(run.out);
  const auto field = [&](const std::string& name, size_t index) -> long long {
    const auto found = lines.find(name);
    if (found == lines.end() || found->second.size() <= index) {
      ADD_FAILURE() << "no '" << name << "' line with field " << index << " in:\n" << run.out;
      return -1;
    }
    return std::stoll(found->second[index]);
  };

  // kernel.function("submit_bio") with $bio->bi_iter->bi_size: whole sectors, never empty. The
  // 32 direct reads of 64 KiB are submitted to md0 (md passes them on to the members with
  // submit_bio_noacct).
  EXPECT_GE(field("submit_bio", 1), 32) << run.err;
  EXPECT_GT(field("submit_bio", 3), 0) << "bi_size";
  EXPECT_EQ(field("submit_bio", 3) % 512, 0) << "bi_size";
  EXPECT_EQ(field("submit_bio", 5), 0) << "bios whose size is not whole sectors";
  // module("raid0").function("raid0_make_request") with $bio and $mddev: md0's reads.
  EXPECT_GE(field("raid0_make_request", 1), 32);
  EXPECT_EQ(field("raid0_make_request", 1), field("submit_bio", 1))
      << "every bio block_hasher submits to md0 reaches raid0_make_request";
  EXPECT_GT(field("raid0_make_request", 3), 0);
  EXPECT_EQ(field("raid0_make_request", 3) % 512, 0);
  EXPECT_EQ(field("raid0_make_request", 5), field("raid0_make_request", 1))
      << "every raid0_make_request is md0's";
  // @cast(disk, "struct gendisk", "kernel")->disk_name: the disk block_hasher reads, md0.
  EXPECT_GE(field("cast_disk md0", 2), 32);
  // SystemTap's own tapsets.
  EXPECT_GE(field("ioblock_md0", 1), 32) << "ioblock.request on md0";
  EXPECT_EQ(field("ioblock_md0", 3) % 512, 0);
  EXPECT_GE(field("vfs_read", 1), 32) << "vfs.read";
  EXPECT_EQ(field("vfs_read", 3), 65536) << "vfs.read's bytes_to_read";
  EXPECT_GT(field("cpu_on", 1), 0) << "scheduler.cpu_on";
  EXPECT_GE(field("pread", 1), 32) << "nd_syscall.pread";
  EXPECT_EQ(field("pread", 3), 65536) << "nd_syscall.pread's count";
}

}  // namespace
}  // namespace iotap::test
