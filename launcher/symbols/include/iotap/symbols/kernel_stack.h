#pragma once
// A kernel backtrace as a probe prints it (stap's backtrace(): hex addresses separated by
// spaces), named with the target's own symbol table.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iotap/symbols/kernel_symbols.h"

namespace iotap::symbols {

struct Frame {
  uint64_t address = 0;
  std::string function;  // empty when the table does not know the address
  std::string module;    // empty for vmlinux
};

// "0xffffffffa9e10fe8 0xffffffffa9e1154a ..." -> the addresses, innermost first. Tokens that
// are not hex addresses are skipped.
std::vector<uint64_t> parse_backtrace(std::string_view text);

// The frames of `addresses`, innermost first, without the frames of `probe_module` itself (a
// backtrace taken in a probe handler starts inside the handler: those frames are the tracer's,
// not the traced thread's).
std::vector<Frame> symbolize_backtrace(const KernelSymbols& symbols,
                                       const std::vector<uint64_t>& addresses,
                                       std::string_view probe_module = "iotap");

}  // namespace iotap::symbols
