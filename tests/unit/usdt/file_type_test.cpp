// Paths that are not regular files (a FIFO must not hang the reader) and ELF files whose
// section name table is damaged (must not read as "no probes"). The damaged files are made here,
// at test time, from the usdt_testprog the build makes.
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <vector>

#include "iotap/usdt/stapsdt_notes.h"

namespace iotap::usdt {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

// This run's scratch files, removed when the test binary exits.
const fs::path& scratch() {
  struct Dir {
    fs::path path = fs::path(::testing::TempDir()) / ("usdt_file_type." + std::to_string(getpid()));
    Dir() { fs::create_directories(path); }
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;
    ~Dir() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

void expect_error(const std::string& path, const std::string& message) {
  auto result = read_probes(path);
  ASSERT_FALSE(result) << path << " read " << result->probes.size() << " probes";
  EXPECT_EQ(result.error(), path + message);
  EXPECT_FALSE(result.error_is_no_probes());
}

TEST(FileType, AFifoIsRefusedWithoutWaitingForAWriter) {
  const fs::path fifo = scratch() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto reading = std::async(std::launch::async, [&] { return read_probes(fifo.string()); });
  if (reading.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    // A reader blocked in open() is let go by a writer, so the test ends either way.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    reading.wait();
    ::close(writer);
    FAIL() << "read_probes blocked on a FIFO";
  }
  auto result = reading.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), fifo.string() +
                                " is a FIFO (named pipe), not a program (name a compiled program "
                                "or shared library on disk)");
}

TEST(FileType, ADeviceNodeIsRefused) {
  expect_error("/dev/null",
               " is a character device, not a program (name a compiled program or shared library "
               "on disk)");
}

TEST(FileType, ASocketIsRefused) {
  const fs::path path = scratch() / "socket";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.string().size(), sizeof address.sun_path) << "TMPDIR too long for a socket";
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0)
      << std::strerror(errno);
  expect_error(path.string(),
               " is a socket, not a program (name a compiled program or shared library on disk)");
  ::close(fd);
}

TEST(FileType, ASymlinkToADirectoryIsADirectory) {
  const fs::path link = scratch() / "dir_link";
  fs::create_directory_symlink(scratch(), link);
  expect_error(link.string(), " is a directory (name the program's binary inside it)");
}

// ---- a damaged section name index (e_shstrndx) -----------------------------------------

Bytes read_bytes(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_scratch(const Bytes& file, const std::string& name) {
  const fs::path path = scratch() / name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  return path.string();
}

// usdt_testprog with e_shstrndx set to `index`, written to the scratch directory.
std::string with_shstrndx(std::uint16_t index, const std::string& name) {
  Bytes file = read_bytes(USDT_TESTPROG);
  EXPECT_GE(file.size(), sizeof(Elf64_Ehdr));
  EXPECT_EQ(file[EI_CLASS], ELFCLASS64) << "the test program is built 64-bit here";
  EXPECT_EQ(file[EI_DATA], ELFDATA2LSB) << "and little-endian";
  std::memcpy(file.data() + offsetof(Elf64_Ehdr, e_shstrndx), &index, sizeof index);
  return write_scratch(file, name);
}

struct Sections {
  std::size_t count = 0;
  std::size_t names = 0;            // the real e_shstrndx
  std::size_t not_names = 0;        // a section that is not a string table (.text)
  std::size_t notes_header_at = 0;  // file offset of .note.stapsdt's section header
};

Sections sections_of(const char* path) {
  Sections out;
  EXPECT_NE(elf_version(EV_CURRENT), EV_NONE);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  EXPECT_NE(elf, nullptr);
  elf_getshdrnum(elf, &out.count);
  elf_getshdrstrndx(elf, &out.names);
  GElf_Ehdr ehdr;
  gelf_getehdr(elf, &ehdr);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    gelf_getshdr(scn, &shdr);
    if (out.not_names == 0 && shdr.sh_type == SHT_PROGBITS &&
        (shdr.sh_flags & SHF_EXECINSTR) != 0) {
      out.not_names = elf_ndxscn(scn);
    }
    if (std::string(elf_strptr(elf, out.names, shdr.sh_name)) == ".note.stapsdt") {
      out.notes_header_at = ehdr.e_shoff + elf_ndxscn(scn) * ehdr.e_shentsize;
    }
  }
  elf_end(elf);
  ::close(fd);
  EXPECT_NE(out.not_names, 0U);
  EXPECT_NE(out.notes_header_at, 0U);
  return out;
}

TEST(DamagedElf, TheUnpatchedCopyStillReads) {
  // The patching itself must not be what breaks the file.
  const Sections sections = sections_of(USDT_TESTPROG);
  auto result = read_probes(with_shstrndx(static_cast<std::uint16_t>(sections.names), "same"));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->probes.size(), 5U);
}

TEST(DamagedElf, ASectionNameIndexPastTheLastSectionIsDamageNotNoProbes) {
  const Sections sections = sections_of(USDT_TESTPROG);
  const auto path = with_shstrndx(static_cast<std::uint16_t>(sections.count + 7), "past_end");
  expect_error(path, " is a damaged ELF file (section names unreadable: e_shstrndx is " +
                         std::to_string(sections.count + 7) + " but there are only " +
                         std::to_string(sections.count) + " sections; rebuild it)");
}

TEST(DamagedElf, ASectionNameIndexAtCodeIsDamageNotNoProbes) {
  const Sections sections = sections_of(USDT_TESTPROG);
  const auto path = with_shstrndx(static_cast<std::uint16_t>(sections.not_names), "at_text");
  expect_error(path,
               " is a damaged ELF file (section names unreadable: e_shstrndx points at "
               "section " +
                   std::to_string(sections.not_names) + ", of type " +
                   std::to_string(SHT_PROGBITS) + ", not a string table; rebuild it)");
}

TEST(DamagedElf, NoSectionNameIndexIsDamageNotNoProbes) {
  expect_error(with_shstrndx(SHN_UNDEF, "zero"),
               " is a damaged ELF file (section names unreadable: e_shstrndx is 0, so no section "
               "has a name; rebuild it)");
}

TEST(DamagedElf, ANoteSectionWhoseNameIsOutsideTheTableIsDamageNotNoProbes) {
  const Sections sections = sections_of(USDT_TESTPROG);
  Bytes file = read_bytes(USDT_TESTPROG);
  const std::uint32_t far_away = 0xfffffff0U;  // Elf64_Shdr.sh_name is its first word
  std::memcpy(file.data() + sections.notes_header_at, &far_away, sizeof far_away);
  const auto path = write_scratch(file, "note_name_far_away");
  expect_error(path, " is a damaged ELF file (section names unreadable: 1 of " +
                         std::to_string(sections.count - 1) +
                         " section names lie outside the section name table; rebuild it)");
}

TEST(DamagedElf, ABinaryWithoutProbesIsStillNoProbes) {
  auto result = read_probes(USDT_NOPROBES);
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error_is_no_probes()) << result.error();
}

}  // namespace
}  // namespace iotap::usdt
