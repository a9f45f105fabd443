// The reader against real binaries the build makes (usdt_testprog, usdt_noprobes), damaged
// copies of them, and hand-built images for layouts the compiler here cannot produce.
#include "iotap/usdt/stapsdt_notes.h"

#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "elf_image.h"

namespace iotap::usdt {
namespace {

namespace fs = std::filesystem;
using testing::Bytes;
using testing::ImageSpec;
using testing::make_descriptor;
using testing::make_elf_image;
using testing::make_note;

Bytes read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// This run's scratch files, removed when the test binary exits so runs leave nothing behind.
struct ScratchDir {
  fs::path path = fs::path(::testing::TempDir()) / ("usdt_test." + std::to_string(getpid()));
  ScratchDir() { fs::create_directories(path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

fs::path write_temp(const std::string& name, const Bytes& bytes) {
  static const ScratchDir dir;
  fs::path path = dir.path / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

// What the test needs to know about usdt_testprog, found with libelf independently of the
// code under test.
struct Layout {
  GElf_Shdr notes{};
  std::size_t notes_header_at = 0;  // file offset of .note.stapsdt's section header
  GElf_Shdr text{};
  GElf_Shdr base{};
  std::map<std::string, std::uint64_t> symbols;
};

Layout layout_of(const char* path) {
  Layout layout;
  EXPECT_NE(elf_version(EV_CURRENT), EV_NONE);
  const int fd = open(path, O_RDONLY);
  EXPECT_GE(fd, 0) << path;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  EXPECT_NE(elf, nullptr);
  GElf_Ehdr ehdr;
  EXPECT_NE(gelf_getehdr(elf, &ehdr), nullptr);
  std::size_t names = 0;
  EXPECT_EQ(elf_getshdrstrndx(elf, &names), 0);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    gelf_getshdr(scn, &shdr);
    const std::string name = elf_strptr(elf, names, shdr.sh_name);
    if (name == ".note.stapsdt") {
      layout.notes = shdr;
      layout.notes_header_at = ehdr.e_shoff + elf_ndxscn(scn) * ehdr.e_shentsize;
    }
    if (name == ".text") {
      layout.text = shdr;
    }
    if (name == ".stapsdt.base") {
      layout.base = shdr;
    }
    if (shdr.sh_type == SHT_SYMTAB) {
      Elf_Data* data = elf_getdata(scn, nullptr);
      for (std::size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
        GElf_Sym sym;
        gelf_getsym(data, static_cast<int>(i), &sym);
        layout.symbols[elf_strptr(elf, shdr.sh_link, sym.st_name)] = sym.st_value;
      }
    }
  }
  elf_end(elf);
  close(fd);
  return layout;
}

const Probe* find(const ProbeList& list, const std::string& name) {
  auto it = std::find_if(list.probes.begin(), list.probes.end(),
                         [&](const Probe& p) { return p.name == name; });
  return it == list.probes.end() ? nullptr : &*it;
}

std::vector<std::string> types(const Probe& probe) {
  std::vector<std::string> out;
  for (const Argument& a : probe.args) {
    out.push_back((a.is_float ? "f" : a.is_signed ? "s" : "u") + std::to_string(a.size_bytes));
  }
  return out;
}

std::string all_problems(const ProbeList& list) {
  std::string out;
  for (const auto& p : list.problems) {
    out += p + "\n";
  }
  return out;
}

// ---- the real test program -------------------------------------------------------------

TEST(StapsdtNotes, ReadsEveryProbeOfTheTestProgram) {
  auto result = read_probes(USDT_TESTPROG);
  ASSERT_TRUE(result) << result.error();
  EXPECT_TRUE(result->problems.empty()) << all_problems(*result);
  ASSERT_EQ(result->probes.size(), 5U);
  for (const Probe& probe : result->probes) {
    EXPECT_EQ(probe.provider, "iotap_test");
  }

  using V = std::vector<std::string>;
  const Probe* no_args = find(*result, "no_args");
  ASSERT_NE(no_args, nullptr);
  EXPECT_TRUE(no_args->args.empty());

  // int8_t, uint16_t, int32_t (volatile, on the stack), uint64_t, const char*
  const Probe* typed = find(*result, "typed");
  ASSERT_NE(typed, nullptr);
  EXPECT_EQ(types(*typed), (V{"s1", "u2", "s4", "u8", "u8"}));
  EXPECT_NE(typed->args[2].operand.find('('), std::string::npos)
      << "a volatile local lives in memory: " << typed->args[2].operand;

  const Probe* floating = find(*result, "floating");
  ASSERT_NE(floating, nullptr);
  EXPECT_EQ(types(*floating), (V{"f8", "f4"}));

  const Probe* constant = find(*result, "constant");
  ASSERT_NE(constant, nullptr);
  ASSERT_EQ(types(*constant), (V{"s4"}));
  EXPECT_EQ(constant->args[0].operand, "$-7");

  const Probe* guarded = find(*result, "guarded");
  ASSERT_NE(guarded, nullptr);
  EXPECT_EQ(types(*guarded), (V{"u8", "s2"}));
}

TEST(StapsdtNotes, OnlyTheGuardedProbeHasASemaphoreAndItIsTheSymbol) {
  auto result = read_probes(USDT_TESTPROG);
  ASSERT_TRUE(result) << result.error();
  const Layout layout = layout_of(USDT_TESTPROG);
  const auto symbol = layout.symbols.find("iotap_test_guarded_semaphore");
  ASSERT_NE(symbol, layout.symbols.end());
  for (const Probe& probe : result->probes) {
    if (probe.name == "guarded") {
      EXPECT_NE(probe.semaphore, 0U);
      EXPECT_EQ(probe.semaphore, symbol->second);
    } else {
      EXPECT_EQ(probe.semaphore, 0U) << probe.name;
    }
  }
}

TEST(StapsdtNotes, ProbeSitesAreInTextAndBaseIsTheBaseSection) {
  auto result = read_probes(USDT_TESTPROG);
  ASSERT_TRUE(result) << result.error();
  const Layout layout = layout_of(USDT_TESTPROG);
  ASSERT_NE(layout.base.sh_addr, 0U);
  for (const Probe& probe : result->probes) {
    EXPECT_GE(probe.pc, layout.text.sh_addr) << probe.name;
    EXPECT_LT(probe.pc, layout.text.sh_addr + layout.text.sh_size) << probe.name;
    EXPECT_EQ(probe.base, layout.base.sh_addr) << probe.name;
  }
}

TEST(StapsdtNotes, ReadingFromMemoryMatchesReadingTheFile) {
  auto from_file = read_probes(USDT_TESTPROG);
  auto from_memory = read_probes_from_image(read_file(USDT_TESTPROG), "usdt_testprog");
  ASSERT_TRUE(from_file);
  ASSERT_TRUE(from_memory);
  EXPECT_EQ(from_file->probes, from_memory->probes);
}

// ---- files that are not what they should be ----------------------------------------------

void expect_error(const std::string& path, const std::string& message) {
  auto result = read_probes(path);
  ASSERT_FALSE(result) << path << " read " << result->probes.size() << " probes";
  EXPECT_EQ(result.error().rfind(path, 0), 0U) << "starts with the path: " << result.error();
  EXPECT_NE(result.error().find(message), std::string::npos) << result.error();
}

TEST(StapsdtNotes, ABinaryWithoutProbesSaysHowToAddThem) {
  expect_error(USDT_NOPROBES,
               " has no USDT probes (no .note.stapsdt section); build it with <sys/sdt.h> probes");
}

TEST(StapsdtNotes, ATextFileIsNotAnElfFile) {
  expect_error(USDT_TEXT_FILE, " is not an ELF file (");
  expect_error(write_temp("empty", {}).string(), " is not an ELF file (");
}

TEST(StapsdtNotes, AMissingFileIsReportedAsMissing) {
  expect_error("/nonexistent/usdt_testprog", " does not exist (check the path");
}

TEST(StapsdtNotes, ADirectoryIsNotABinary) {
  expect_error(::testing::TempDir(), " is a directory (");
}

TEST(StapsdtNotes, AnUnreadableFileIsReportedAsUnreadable) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "root reads any file regardless of its mode";
  }
  const fs::path path = write_temp("unreadable", read_file(USDT_TESTPROG));
  fs::permissions(path, fs::perms::none);
  expect_error(path.string(), " is not readable: permission denied");
}

// ---- damaged copies of the test program -------------------------------------------------

void put32(Bytes& bytes, std::size_t at, std::uint32_t value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);  // the test program is little-endian
}

std::uint32_t get32(const Bytes& bytes, std::size_t at) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// File offsets of each note in usdt_testprog's .note.stapsdt.
std::vector<std::size_t> note_offsets(const Bytes& file, const GElf_Shdr& notes) {
  std::vector<std::size_t> offsets;
  for (std::size_t at = notes.sh_offset; at < notes.sh_offset + notes.sh_size;) {
    offsets.push_back(at);
    at += 12 + ((get32(file, at) + 3) & ~3U) + ((get32(file, at + 4) + 3) & ~3U);
  }
  return offsets;
}

TEST(StapsdtNotes, AFileCutInTheMiddleOfTheNotesIsAnErrorNotACrash) {
  const Bytes whole = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  const std::size_t cut = layout.notes.sh_offset + layout.notes.sh_size / 2;
  const fs::path path =
      write_temp("cut", Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut)));
  // The section headers come after the notes, so the cut takes them with it.
  expect_error(path.string(), " is a corrupted ELF file: its section header table at offset 0x");
}

TEST(StapsdtNotes, ANoteSectionRunningPastTheEndOfTheFileIsReported) {
  Bytes file = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  // Elf64_Shdr.sh_offset is at byte 24 of the section header.
  const std::uint64_t past_end = file.size() - 16;
  std::memcpy(file.data() + layout.notes_header_at + 24, &past_end, sizeof past_end);
  auto result = read_probes(write_temp("notes_past_end", file).string());
  ASSERT_TRUE(result) << result.error();
  EXPECT_TRUE(result->probes.empty());
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("cannot read the .note.stapsdt section"), std::string::npos)
      << result->problems[0];
}

TEST(StapsdtNotes, AHugeNameSizeLosesThatNoteAndTheRestButKeepsTheOnesBefore) {
  Bytes file = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  const auto offsets = note_offsets(file, layout.notes);
  ASSERT_EQ(offsets.size(), 5U);
  put32(file, offsets[2], 0xfffffff0U);
  auto result = read_probes(write_temp("huge_namesz", file).string());
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->probes.size(), 2U);
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("note 3 (offset 0x"), std::string::npos)
      << result->problems[0];
  EXPECT_NE(result->problems[0].find("past the end of the section"), std::string::npos)
      << result->problems[0];
}

TEST(StapsdtNotes, AHugeDescriptorSizeIsReported) {
  Bytes file = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  const auto offsets = note_offsets(file, layout.notes);
  put32(file, offsets[0] + 4, 0x7fffffffU);
  auto result = read_probes(write_temp("huge_descsz", file).string());
  ASSERT_TRUE(result) << result.error();
  EXPECT_TRUE(result->probes.empty());
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("2147483647-byte descriptor, past the end"), std::string::npos)
      << result->problems[0];
}

TEST(StapsdtNotes, StringsWithoutTheirNulAreReportedAndOtherNotesStillRead) {
  Bytes file = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  const auto offsets = note_offsets(file, layout.notes);
  // Note 2 ("typed"): header 12, owner 8, three addresses 24, then the strings.
  const std::size_t strings = offsets[1] + 12 + 8 + 24;
  const std::size_t end = offsets[1] + 12 + 8 + get32(file, offsets[1] + 4);
  std::replace(file.begin() + static_cast<std::ptrdiff_t>(strings),
               file.begin() + static_cast<std::ptrdiff_t>(end), std::uint8_t{0}, std::uint8_t{'A'});
  auto result = read_probes(write_temp("no_nul", file).string());
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->probes.size(), 4U);
  EXPECT_EQ(find(*result, "typed"), nullptr);
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("note 2 (offset 0x"), std::string::npos);
  EXPECT_NE(result->problems[0].find("is not NUL-terminated within the descriptor"),
            std::string::npos)
      << result->problems[0];
}

TEST(StapsdtNotes, ADescriptorTooShortForItsAddressesIsReported) {
  Bytes file = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  const auto offsets = note_offsets(file, layout.notes);
  put32(file, offsets[4] + 4, 20);  // the last note, so the ones after cannot be misread
  auto result = read_probes(write_temp("short_desc", file).string());
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->probes.size(), 4U);
  ASSERT_GE(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("descriptor is 20 bytes, too short"), std::string::npos)
      << result->problems[0];
}

TEST(StapsdtNotes, EveryPrefixAndEveryByteFlipOfTheNotesIsSurvived) {
  // Cheap exhaustive damage; the fuzzer does the expensive kind.
  const Bytes whole = read_file(USDT_TESTPROG);
  const Layout layout = layout_of(USDT_TESTPROG);
  for (std::size_t i = 0; i < layout.notes.sh_size; ++i) {
    Bytes file = whole;
    file[layout.notes.sh_offset + i] ^= 0xff;
    auto result = read_probes_from_image(file, "flipped");
    ASSERT_TRUE(result) << result.error();
    EXPECT_LE(result->probes.size(), 5U);
  }
  for (std::size_t size = 0; size < whole.size(); size += 97) {
    auto result = read_probes_from_image(std::span(whole).first(size), "prefix");
    EXPECT_FALSE(result.has_value() && result->probes.size() > 5);
  }
}

// ---- hand-built images -----------------------------------------------------------------

Bytes stapsdt_note(AddressFormat format, std::uint64_t pc, std::uint64_t base,
                   std::uint64_t semaphore, const std::string& name) {
  return make_note(format.byte_order, "stapsdt", 3,
                   make_descriptor(format, pc, base, semaphore, "app", name, "-4@%eax"));
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& part : parts) {
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

TEST(StapsdtNotes, ReadsEveryClassAndByteOrder) {
  for (const ElfClass elf_class : {ElfClass::k32, ElfClass::k64}) {
    for (const ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
      const AddressFormat format{elf_class, order};
      ImageSpec spec{.format = format,
                     .notes = concat({stapsdt_note(format, 0x1234, 0x2000, 0x3000, "one"),
                                      stapsdt_note(format, 0x1238, 0x2000, 0, "two")}),
                     .base_section_address = 0x2000};
      auto result = read_probes_from_image(make_elf_image(spec), "image");
      ASSERT_TRUE(result) << result.error();
      ASSERT_EQ(result->probes.size(), 2U);
      EXPECT_EQ(result->probes[0].pc, 0x1234U);
      EXPECT_EQ(result->probes[0].semaphore, 0x3000U);
      EXPECT_EQ(result->probes[1].name, "two");
      EXPECT_EQ(result->probes[1].args, (std::vector<Argument>{{4, true, false, "%eax"}}));
    }
  }
}

TEST(StapsdtNotes, PrelinkShiftsPcAndSemaphoreByTheBaseSectionsMove) {
  const AddressFormat format{ElfClass::k64, ByteOrder::kLittle};
  // Linked with .stapsdt.base at 0x2000, then prelinked to 0x7f0000002000.
  ImageSpec spec{.format = format,
                 .notes = concat({stapsdt_note(format, 0x1234, 0x2000, 0x4010, "guarded"),
                                  stapsdt_note(format, 0x1300, 0x2000, 0, "plain")}),
                 .base_section_address = 0x7f0000002000};
  auto result = read_probes_from_image(make_elf_image(spec), "prelinked");
  ASSERT_TRUE(result) << result.error();
  ASSERT_EQ(result->probes.size(), 2U);
  EXPECT_EQ(result->probes[0].pc, 0x7f0000001234U);
  EXPECT_EQ(result->probes[0].semaphore, 0x7f0000004010U);
  EXPECT_EQ(result->probes[0].base, 0x2000U) << "base stays as the note recorded it";
  EXPECT_EQ(result->probes[1].semaphore, 0U) << "no semaphore stays no semaphore";
}

TEST(StapsdtNotes, PrelinkArithmeticWrapsAt32BitsIn32BitFiles) {
  const AddressFormat format{ElfClass::k32, ByteOrder::kLittle};
  ImageSpec spec{.format = format,
                 .notes = stapsdt_note(format, 0x08049000, 0x0804a000, 0x0804c000, "down"),
                 .base_section_address = 0x1000};
  auto result = read_probes_from_image(make_elf_image(spec), "prelinked32");
  ASSERT_TRUE(result) << result.error();
  ASSERT_EQ(result->probes.size(), 1U);
  EXPECT_EQ(result->probes[0].pc, 0x0U);
  EXPECT_EQ(result->probes[0].semaphore, 0x3000U);
}

TEST(StapsdtNotes, WithoutABaseSectionNothingIsShifted) {
  const AddressFormat format{ElfClass::k64, ByteOrder::kLittle};
  ImageSpec spec{.format = format, .notes = stapsdt_note(format, 0x1234, 0x2000, 0, "p")};
  auto result = read_probes_from_image(make_elf_image(spec), "nobase");
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->probes.at(0).pc, 0x1234U);
}

TEST(StapsdtNotes, NotesOfOtherOwnersOrTypesAreSkipped) {
  const AddressFormat format{ElfClass::k64, ByteOrder::kLittle};
  const Bytes real = stapsdt_note(format, 0x1234, 0x2000, 0, "real");
  const Bytes desc = make_descriptor(format, 1, 2, 0, "x", "y", "");
  ImageSpec spec{.format = format,
                 .notes = concat({make_note(format.byte_order, "GNU", 3, desc),
                                  make_note(format.byte_order, "stapsdt", 1, desc),
                                  make_note(format.byte_order, "stapsdtx", 3, desc), real})};
  auto result = read_probes_from_image(make_elf_image(spec), "mixed");
  ASSERT_TRUE(result) << result.error();
  ASSERT_EQ(result->probes.size(), 1U);
  EXPECT_EQ(result->probes[0].name, "real");
  EXPECT_TRUE(result->problems.empty()) << all_problems(*result);
}

TEST(StapsdtNotes, AnImageWithoutSectionHeadersSaysWhyNothingIsFound) {
  Bytes image = make_elf_image({});
  std::fill_n(image.begin() + 40, 8, 0);  // Elf64_Ehdr.e_shoff
  std::fill_n(image.begin() + 60, 4, 0);  // e_shnum, e_shstrndx
  auto result = read_probes_from_image(image, "sstripped");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().rfind("sstripped has no section headers", 0), 0U) << result.error();
}

TEST(StapsdtNotes, AnEmptyNoteSectionHasNoProbes) {
  auto result = read_probes_from_image(make_elf_image({}), "empty_notes");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "empty_notes has no USDT probes (its .note.stapsdt section holds no stapsdt notes); "
            "build it with <sys/sdt.h> probes");
}

TEST(StapsdtNotes, ANoteSectionWithoutContentsIsReported) {
  const AddressFormat format{ElfClass::k64, ByteOrder::kLittle};
  ImageSpec spec{.format = format,
                 .notes = stapsdt_note(format, 1, 2, 0, "p"),
                 .note_section_type = 8};  // SHT_NOBITS, as in a separate debug-info file
  auto result = read_probes_from_image(make_elf_image(spec), "debuginfo");
  ASSERT_TRUE(result) << result.error();
  EXPECT_TRUE(result->probes.empty());
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("not SHT_NOTE"), std::string::npos) << result->problems[0];
}

TEST(StapsdtNotes, AHeaderCutShortAtTheEndOfTheSectionIsReported) {
  const AddressFormat format{ElfClass::k64, ByteOrder::kBig};
  const Bytes note = stapsdt_note(format, 1, 2, 0, "p");
  ImageSpec spec{.format = format, .notes = concat({note, Bytes(8, 0)})};
  auto result = read_probes_from_image(make_elf_image(spec), "cut_header");
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->probes.size(), 1U);
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_NE(result->problems[0].find("ends 8 bytes into its header"), std::string::npos)
      << result->problems[0];
}

TEST(StapsdtNotes, ABadArgumentStringIsReportedWithTheProbesName) {
  const AddressFormat format{ElfClass::k64, ByteOrder::kLittle};
  ImageSpec spec{.format = format,
                 .notes = make_note(format.byte_order, "stapsdt", 3,
                                    make_descriptor(format, 1, 2, 0, "app", "bad", "5@%eax"))};
  auto result = read_probes_from_image(make_elf_image(spec), "badargs");
  ASSERT_TRUE(result) << result.error();
  ASSERT_EQ(result->problems.size(), 1U);
  EXPECT_EQ(result->problems[0],
            "note 1 (offset 0x0 in .note.stapsdt): probe app:bad: argument 1: '5@%eax' has size 5 "
            "(sizes are 1, 2, 4 or 8 bytes)");
}

}  // namespace
}  // namespace iotap::usdt
