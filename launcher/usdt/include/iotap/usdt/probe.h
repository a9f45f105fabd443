#pragma once
// A USDT probe as its .note.stapsdt entry describes it: plain data, no behaviour.
#include <cstdint>
#include <string>
#include <vector>

namespace iotap::usdt {

struct Argument {
  // 1, 2, 4 or 8 (16 for a long double); 0 when the note predates sdt.h's "SIZE@" prefix.
  int size_bytes = 0;
  bool is_signed = false;
  // sdt.h since systemtap 4.x writes "8f@" for floating-point arguments.
  bool is_float = false;
  // As the compiler wrote it: "%edx", "-16(%rbp)", "$-7". Architecture-specific, so kept as text.
  std::string operand;

  friend bool operator==(const Argument&, const Argument&) = default;
};

struct Probe {
  std::string provider;
  std::string name;
  // Link-time addresses, after the prelink adjustment described in elf_notes.h.
  std::uint64_t pc = 0;
  // _.stapsdt.base as the note recorded it (before adjustment), so a reader can see the shift.
  std::uint64_t base = 0;
  // The counter a tracer raises to enable the probe; 0 when the probe has none.
  std::uint64_t semaphore = 0;
  std::vector<Argument> args;

  friend bool operator==(const Probe&, const Probe&) = default;
};

}  // namespace iotap::usdt
