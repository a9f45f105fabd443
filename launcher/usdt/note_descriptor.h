#pragma once
// The descriptor of one stapsdt note, as bytes, into a Probe. Knows nothing of ELF files, so
// tests and the fuzzer can feed it bytes directly.
//
// Layout (sys/sdt.h, _SDT_ASM_BODY): three addresses in the file's byte order and word size
// (pc, the link-time address of _.stapsdt.base, the semaphore or 0), then NUL-terminated
// provider, name and argument string. Very old notes end after the name: no arguments. Bytes
// after the argument string's NUL are ignored, as gdb and systemtap ignore them.
#include <cstddef>
#include <cstdint>
#include <span>

#include "iotap/usdt/expected.h"
#include "iotap/usdt/probe.h"

namespace iotap::usdt {

enum class ElfClass { k32, k64 };
enum class ByteOrder { kLittle, kBig };

struct AddressFormat {
  ElfClass elf_class = ElfClass::k64;
  ByteOrder byte_order = ByteOrder::kLittle;
};

constexpr std::size_t address_size(ElfClass elf_class) {
  return elf_class == ElfClass::k64 ? 8 : 4;
}

// Addresses come back exactly as recorded; the prelink adjustment needs the section table and
// is elf_notes' job. Errors name the probe when the name could be read.
Expected<Probe> parse_note_descriptor(std::span<const std::uint8_t> desc, AddressFormat format);

}  // namespace iotap::usdt
