#pragma once
// Every stapsdt note of an ELF file already opened with libelf, each parsed into a Probe.
//
// Prelink adjustment: a note records the link-time addresses of its probe and of
// _.stapsdt.base. If the binary was later moved (prelink), the .stapsdt.base section's address
// no longer matches what the notes say; pc and a nonzero semaphore are shifted by the
// difference, as systemtap and gdb do. Without a .stapsdt.base section nothing is shifted
// (systemtap's choice; gdb instead drops the probes).
#include <libelf.h>

#include <string>
#include <vector>

#include "iotap/usdt/expected.h"
#include "iotap/usdt/probe.h"

namespace iotap::usdt {

struct ProbeList {
  // Every note that parsed, in file order.
  std::vector<Probe> probes;
  // One line per note that did not, e.g. "note 3 (offset 0x58 in .note.stapsdt): ...". A bad
  // note does not hide the good ones, but the caller should say the binary is damaged.
  std::vector<std::string> problems;
};

// Fails only when no note can be read at all. The error reads as a predicate on the file's
// name ("has no USDT probes (...)") so the caller can put the path in front of it.
Expected<ProbeList> read_stapsdt_notes(Elf* elf);

}  // namespace iotap::usdt
