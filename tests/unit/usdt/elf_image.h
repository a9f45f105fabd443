#pragma once
// Hand-built ELF images and note bytes, for the cases a compiler here will not produce: 32-bit
// and big-endian files, prelinked addresses, and deliberately corrupted notes. Shared by the
// unit tests and the fuzz target.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "note_descriptor.h"

namespace iotap::usdt::testing {

using Bytes = std::vector<std::uint8_t>;

// A descriptor as sys/sdt.h lays it out: three addresses, then three NUL-terminated strings.
Bytes make_descriptor(AddressFormat format, std::uint64_t pc, std::uint64_t base,
                      std::uint64_t semaphore, const std::string& provider, const std::string& name,
                      const std::string& args);

// One note: header (namesz, descsz, type) in `order`, owner name and descriptor each padded to 4.
Bytes make_note(ByteOrder order, const std::string& owner, std::uint32_t type, const Bytes& desc);

struct ImageSpec {
  AddressFormat format;
  // Contents of .note.stapsdt; no such section when empty and `note_section` is false.
  Bytes notes;
  bool note_section = true;
  std::uint32_t note_section_type = 7;  // SHT_NOTE
  // Address of a .stapsdt.base section; none when unset.
  std::optional<std::uint64_t> base_section_address{};
};

// A minimal ET_EXEC image: ELF header, section contents, section header table.
Bytes make_elf_image(const ImageSpec& spec);

}  // namespace iotap::usdt::testing
