// libFuzzer target for the kernel symbol readers: arbitrary text as a guest's /proc/kallsyms
// (with /proc/modules lines), read into a KernelSymbols table and turned into a System.map,
// then the text itself symbolized as backtrace() output and as a backtrace's address list.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iotap/runner/kernel_tree.h"
#include "iotap/symbols/kernel_stack.h"
#include "iotap/symbols/kernel_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto table = iotap::symbols::KernelSymbols::parse(text);
  (void)iotap::symbols::addresses_hidden(text);

  // Every address the text names, and the edges of the address space.
  for (const uint64_t address :
       {uint64_t{0}, uint64_t{1}, ~uint64_t{0}, uint64_t{0xffffffff81000000}}) {
    if (const auto symbol = table.lookup(address); symbol && symbol->offset > address) std::abort();
    if (table.describe(address).empty()) std::abort();
  }
  (void)table.symbolize_text(text);
  const auto frames =
      iotap::symbols::symbolize_backtrace(table, iotap::symbols::parse_backtrace(text), "iotap");
  for (const auto& frame : frames) {
    if (const auto symbol = table.lookup(frame.address); symbol && symbol->offset > frame.address)
      std::abort();
  }

  // The System.map made from it must read back: only vmlinux's lines, none of them lost.
  const std::string map = iotap::runner::system_map_from_kallsyms(text);
  const auto from_map = iotap::symbols::KernelSymbols::parse(map);
  if (from_map.size() > table.size()) std::abort();
  return 0;
}
