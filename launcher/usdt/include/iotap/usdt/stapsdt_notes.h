#pragma once
// The USDT probes of a binary, from its .note.stapsdt section: what `iotap probes` lists and
// what the launcher checks a program against before compiling tapsets for it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "iotap/usdt/elf_notes.h"
#include "iotap/usdt/expected.h"
#include "iotap/usdt/probe.h"

namespace iotap::usdt {

// Errors are one line starting with the path: "./x does not exist (check the path)",
// "./x is not an ELF file (...)", "./x has no USDT probes (...)". Notes that are corrupted
// individually are listed in ProbeList::problems instead.
Expected<ProbeList> read_probes(const std::string& path);

// The same for a file already in memory; `label` stands for the path in messages.
Expected<ProbeList> read_probes_from_image(std::span<const std::uint8_t> image,
                                           std::string_view label);

}  // namespace iotap::usdt
