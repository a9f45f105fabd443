#include "iotap/usdt/elf_notes.h"

#include <gelf.h>

#include <array>
#include <charconv>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "note_descriptor.h"

namespace iotap::usdt {
namespace {

constexpr std::string_view kNoteSection = ".note.stapsdt";
constexpr std::string_view kBaseSection = ".stapsdt.base";
// NT_STAPSDT in sys/sdt.h; <elf.h> does not define it.
constexpr GElf_Word kNoteType = 3;
constexpr std::string_view kNoteOwner{"stapsdt\0", 8};

std::string hex(std::uint64_t value) {
  std::array<char, 16> digits{};
  auto* const end = std::to_chars(digits.data(), digits.data() + digits.size(), value, 16).ptr;
  return "0x" + std::string(digits.data(), end);
}

// libelf's own reason, when it has one; reading it also clears it for the next call.
std::string libelf_reason() {
  const int error = elf_errno();
  return error == 0 ? "" : std::string(": ") + elf_errmsg(error);
}

Unexpected corrupted(std::string_view what) {
  return Unexpected{"is a corrupted ELF file: " + std::string(what) + libelf_reason() +
                    " (is it truncated? rebuild it)"};
}

// The section name table is how .note.stapsdt is found; without it the file cannot be
// searched, which is damage, not a binary without probes.
Unexpected damaged_names(const std::string& why) {
  return Unexpected{"is a damaged ELF file (section names unreadable: " + why + "; rebuild it)"};
}

// e_shstrndx must name a string table among the sections; libelf takes it on trust.
std::optional<Unexpected> check_names_section(Elf* elf, std::size_t names_index,
                                              std::size_t section_count) {
  if (names_index == SHN_UNDEF) {
    return damaged_names("e_shstrndx is 0, so no section has a name");
  }
  if (names_index >= section_count) {
    return damaged_names("e_shstrndx is " + std::to_string(names_index) + " but there are only " +
                         std::to_string(section_count) + " sections");
  }
  GElf_Shdr shdr;
  Elf_Scn* scn = elf_getscn(elf, names_index);
  if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr) {
    return damaged_names("the header of section " + std::to_string(names_index) +
                         " (e_shstrndx) cannot be read" + libelf_reason());
  }
  if (shdr.sh_type != SHT_STRTAB) {
    return damaged_names("e_shstrndx points at section " + std::to_string(names_index) +
                         ", of type " + std::to_string(shdr.sh_type) + ", not a string table");
  }
  return std::nullopt;
}

std::string where(int index, std::size_t offset) {
  return "note " + std::to_string(index) + " (offset " + hex(offset) + " in .note.stapsdt)";
}

// gelf_getnote only says "no"; read the header ourselves to say why.
std::string describe_overrun(const Elf_Data& data, int index, std::size_t offset) {
  const std::size_t left = data.d_size - offset;
  GElf_Nhdr header;
  if (left < sizeof header) {
    return where(index, offset) + ": the section ends " + std::to_string(left) +
           " bytes into its header (truncated or corrupted)";
  }
  std::memcpy(&header, static_cast<const char*>(data.d_buf) + offset, sizeof header);
  return where(index, offset) + ": its header claims a " + std::to_string(header.n_namesz) +
         "-byte name and a " + std::to_string(header.n_descsz) +
         "-byte descriptor, past the end of the section (" + std::to_string(left) +
         " bytes left; corrupted, and any notes after it are lost)";
}

std::uint64_t shifted(std::uint64_t address, std::uint64_t shift, ElfClass elf_class) {
  const std::uint64_t sum = address + shift;
  return elf_class == ElfClass::k32 ? sum & 0xffffffffU : sum;
}

void read_section(Elf_Scn* scn, AddressFormat format, std::optional<std::uint64_t> base_address,
                  int& note_index, ProbeList& out) {
  GElf_Shdr shdr;
  if (gelf_getshdr(scn, &shdr) == nullptr) {
    out.problems.push_back("cannot read the .note.stapsdt section header" + libelf_reason());
    return;
  }
  if (shdr.sh_type != SHT_NOTE) {
    // A separate debug-info file keeps the header but not the contents (SHT_NOBITS).
    out.problems.push_back(".note.stapsdt has section type " + std::to_string(shdr.sh_type) +
                           ", not SHT_NOTE, so it holds no notes (a stripped debug file?)");
    return;
  }
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr) {
    out.problems.push_back("cannot read the .note.stapsdt section" + libelf_reason() +
                           " (is the file truncated?)");
    return;
  }
  if (data->d_buf == nullptr) {
    return;
  }

  const auto* bytes = static_cast<const std::uint8_t*>(data->d_buf);
  std::size_t offset = 0;
  while (offset < data->d_size) {
    ++note_index;
    GElf_Nhdr header;
    std::size_t name_offset = 0;
    std::size_t desc_offset = 0;
    const std::size_t next = gelf_getnote(data, offset, &header, &name_offset, &desc_offset);
    if (next == 0) {
      out.problems.push_back(describe_overrun(*data, note_index, offset));
      return;
    }
    // Other owners may share the section in principle; only stapsdt notes of type 3 are probes.
    const std::string_view owner(reinterpret_cast<const char*>(bytes + name_offset),
                                 header.n_namesz);
    if (header.n_type == kNoteType && owner == kNoteOwner) {
      auto probe = parse_note_descriptor(std::span(bytes + desc_offset, header.n_descsz), format);
      if (!probe) {
        out.problems.push_back(where(note_index, offset) + ": " + probe.error());
      } else {
        Probe p = std::move(probe).value();
        if (base_address && *base_address != p.base) {
          const std::uint64_t shift = *base_address - p.base;
          p.pc = shifted(p.pc, shift, format.elf_class);
          if (p.semaphore != 0) {
            p.semaphore = shifted(p.semaphore, shift, format.elf_class);
          }
        }
        out.probes.push_back(std::move(p));
      }
    }
    offset = next;
  }
}

// The ELF class and byte order: the notes' addresses are read in them.
std::optional<Unexpected> read_address_format(Elf* elf, AddressFormat& format) {
  switch (gelf_getclass(elf)) {
    case ELFCLASS32:
      format.elf_class = ElfClass::k32;
      break;
    case ELFCLASS64:
      format.elf_class = ElfClass::k64;
      break;
    default:
      return corrupted("unknown ELF class");
  }
  const char* ident = elf_getident(elf, nullptr);
  if (ident == nullptr) {
    return corrupted("cannot read the ELF identification");
  }
  switch (ident[EI_DATA]) {
    case ELFDATA2LSB:
      format.byte_order = ByteOrder::kLittle;
      break;
    case ELFDATA2MSB:
      format.byte_order = ByteOrder::kBig;
      break;
    default:
      return corrupted("unknown byte order");
  }
  return std::nullopt;
}

// How many sections there are: none is an error, whether stripped or truncated.
std::optional<Unexpected> count_sections(Elf* elf, std::size_t& section_count) {
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf, &ehdr) == nullptr) {
    return corrupted("cannot read the ELF header");
  }
  if (elf_getshdrnum(elf, &section_count) != 0) {
    return corrupted("cannot count sections");
  }
  // libelf quietly reports no sections when the table lies past the end of the file, which
  // would otherwise read as "no probes" for a truncated copy.
  if (section_count == 0 && ehdr.e_shoff != 0) {
    return Unexpected{"is a corrupted ELF file: its section header table at offset " +
                      hex(ehdr.e_shoff) +
                      " lies past the end of the file (is it truncated? rebuild it)"};
  }
  if (section_count == 0) {
    return Unexpected{
        "has no section headers, so its USDT notes cannot be found (stripped with sstrip? use "
        "the unstripped binary)"};
  }
  return std::nullopt;
}

struct NoteSections {
  std::vector<Elf_Scn*> notes;
  std::optional<std::uint64_t> base_address;  // .stapsdt.base's, when there is one
};

// The .note.stapsdt sections, found by name; none is an error (no probes, or damaged names).
std::optional<Unexpected> find_note_sections(Elf* elf, std::size_t names_index,
                                             std::size_t section_count, NoteSections& found) {
  std::size_t unnamed = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) {
      return corrupted("cannot read a section header");
    }
    const char* name = elf_strptr(elf, names_index, shdr.sh_name);
    if (name == nullptr) {
      ++unnamed;
      continue;
    }
    // Relocatable objects can hold several (one per COMDAT group); linking merges them.
    if (name == kNoteSection) {
      found.notes.push_back(scn);
    }
    if (name == kBaseSection) {
      found.base_address = shdr.sh_addr;
    }
  }
  // An unreadable name may be .note.stapsdt's own: "no probes" would then be a guess.
  if (found.notes.empty() && unnamed > 0) {
    (void)elf_errno();  // libelf's reason for the last name only; the count says more
    return damaged_names(std::to_string(unnamed) + " of " + std::to_string(section_count - 1) +
                         " section names lie outside the section name table");
  }
  if (found.notes.empty()) {
    return Unexpected{
        "has no USDT probes (no .note.stapsdt section); build it with <sys/sdt.h> probes", true};
  }
  return std::nullopt;
}

}  // namespace

Expected<ProbeList> read_stapsdt_notes(Elf* elf) {
  AddressFormat format;
  if (auto problem = read_address_format(elf, format)) {
    return *problem;
  }
  std::size_t section_count = 0;
  if (auto problem = count_sections(elf, section_count)) {
    return *problem;
  }
  std::size_t names_index = 0;
  if (elf_getshdrstrndx(elf, &names_index) != 0) {
    return damaged_names("e_shstrndx cannot be read" + libelf_reason());
  }
  if (auto problem = check_names_section(elf, names_index, section_count)) {
    return *problem;
  }
  NoteSections sections;
  if (auto problem = find_note_sections(elf, names_index, section_count, sections)) {
    return *problem;
  }

  ProbeList list;
  int note_index = 0;
  for (Elf_Scn* scn : sections.notes) {
    read_section(scn, format, sections.base_address, note_index, list);
  }
  if (list.probes.empty() && list.problems.empty()) {
    return Unexpected{
        "has no USDT probes (its .note.stapsdt section holds no stapsdt notes); build it with "
        "<sys/sdt.h> probes",
        true};
  }
  return list;
}

}  // namespace iotap::usdt
