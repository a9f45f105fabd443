// libFuzzer target for the USDT note reader. The first byte chooses what the rest is:
//   bit 0: ELFCLASS32 / ELFCLASS64      bit 1: little / big endian
//   bits 2-3: 0 (or 3) one note descriptor, straight to parse_note_descriptor
//             1 the contents of a .note.stapsdt section, wrapped in a valid ELF image whose
//               .stapsdt.base is where the notes say (bit 4 set) or elsewhere (prelinked)
//             2 a whole ELF image, straight to elf_memory
// Mode 1 is where most of the reading code lives: a mutated whole image nearly always breaks
// its headers first and never reaches the notes.
//
// Seeds in corpus/ were made from usdt_testprog's notes and elf_image's builder; any crash
// input the fuzzer finds belongs there too, so the regression test replays it forever.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "elf_image.h"
#include "iotap/usdt/stapsdt_notes.h"
#include "note_descriptor.h"

namespace {

using iotap::usdt::AddressFormat;
using iotap::usdt::ByteOrder;
using iotap::usdt::ElfClass;
using iotap::usdt::Probe;

// What a successful parse promises its callers; anything else is a bug worth a crash.
void check(const Probe& probe) {
  if (probe.provider.empty() || probe.name.empty()) {
    std::abort();
  }
  for (const auto& arg : probe.args) {
    const int s = arg.size_bytes;
    if (s != 0 && s != 1 && s != 2 && s != 4 && s != 8 && !(arg.is_float && s == 16)) {
      std::abort();
    }
    if (arg.operand.empty()) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::uint8_t control = data[0];
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  const AddressFormat format{(control & 1) != 0 ? ElfClass::k64 : ElfClass::k32,
                             (control & 2) != 0 ? ByteOrder::kBig : ByteOrder::kLittle};
  switch ((control >> 2) & 3) {
    case 0:
    case 3: {
      auto probe = iotap::usdt::parse_note_descriptor(rest, format);
      if (probe) {
        check(*probe);
      }
      break;
    }
    case 1: {
      iotap::usdt::testing::ImageSpec spec{
          .format = format,
          .notes = {rest.begin(), rest.end()},
          .base_section_address = (control & 0x10) != 0 ? 0x2010 : 0x7f0000002000};
      auto list =
          iotap::usdt::read_probes_from_image(iotap::usdt::testing::make_elf_image(spec), "fuzz");
      if (list) {
        for (const Probe& probe : list->probes) {
          check(probe);
        }
      }
      break;
    }
    default: {  // 2
      auto list = iotap::usdt::read_probes_from_image(rest, "fuzz");
      if (list) {
        for (const Probe& probe : list->probes) {
          check(probe);
        }
      }
      break;
    }
  }
  return 0;
}
