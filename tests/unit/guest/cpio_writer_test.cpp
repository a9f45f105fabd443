#include "cpio_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <string>

#include "iotap/util/files.h"
#include "iotap/util/temp_dir.h"

namespace iotap::guest {
namespace {

struct Entry {
  uint32_t mode = 0;
  std::string data;
};

// An independent reader of the newc format, as the kernel's init/initramfs.c reads it.
std::map<std::string, Entry> read_newc(const std::string& bytes, bool* saw_trailer) {
  std::map<std::string, Entry> entries;
  size_t at = 0;
  const auto field = [&](size_t index) {
    return static_cast<uint32_t>(std::stoul(bytes.substr(at + 6 + index * 8, 8), nullptr, 16));
  };
  const auto align = [](size_t n) { return (n + 3) & ~size_t{3}; };
  *saw_trailer = false;
  while (at + 110 <= bytes.size()) {
    EXPECT_EQ(bytes.substr(at, 6), "070701");
    const uint32_t mode = field(1);
    const uint32_t size = field(6);
    const uint32_t name_size = field(11);
    const std::string name = bytes.substr(at + 110, name_size - 1);
    EXPECT_EQ(bytes[at + 110 + name_size - 1], '\0');
    const size_t data_at = align(at + 110 + name_size);
    if (name == "TRAILER!!!") {
      *saw_trailer = true;
      break;
    }
    entries[name] = Entry{mode, bytes.substr(data_at, size)};
    at = align(data_at + size);
  }
  return entries;
}

TEST(CpioWriter, WritesWhatTheKernelUnpacks) {
  TempDir dir;
  write_file(dir / "host.bin", std::string("abcde"));
  {
    CpioWriter cpio(dir / "out.cpio");
    cpio.add_file("/etc/iotap/conf", "x=1\n", 0600);
    cpio.add_host_file("/usr/bin/tool", dir / "host.bin", 0755);
    cpio.add_symlink("/bin", "usr/bin");
    cpio.add_file("/etc/iotap/conf", "ignored: first one wins");
    cpio.finish();
  }
  const std::string bytes = read_file(dir / "out.cpio");
  EXPECT_EQ(bytes.size() % 4, 0U);
  bool trailer = false;
  const auto entries = read_newc(bytes, &trailer);
  EXPECT_TRUE(trailer);
  ASSERT_TRUE(entries.contains("etc"));
  EXPECT_TRUE(S_ISDIR(entries.at("etc").mode));
  EXPECT_TRUE(S_ISDIR(entries.at("etc/iotap").mode));
  EXPECT_EQ(entries.at("etc/iotap/conf").data, "x=1\n");
  EXPECT_EQ(entries.at("etc/iotap/conf").mode, S_IFREG | 0600);
  EXPECT_EQ(entries.at("usr/bin/tool").data, "abcde");
  EXPECT_EQ(entries.at("usr/bin/tool").mode, S_IFREG | 0755);
  EXPECT_TRUE(S_ISLNK(entries.at("bin").mode));
  EXPECT_EQ(entries.at("bin").data, "usr/bin");
}

TEST(CpioWriter, SameInputsSameBytes) {
  TempDir dir;
  for (const char* name : {"a.cpio", "b.cpio"}) {
    CpioWriter cpio(dir / name);
    cpio.add_file("/init", "#!/bin/sh\n", 0755);
    cpio.finish();
  }
  EXPECT_EQ(read_file(dir / "a.cpio"), read_file(dir / "b.cpio"));
}

}  // namespace
}  // namespace iotap::guest
