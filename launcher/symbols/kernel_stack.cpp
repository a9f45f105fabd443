#include "iotap/symbols/kernel_stack.h"

#include <charconv>

namespace iotap::symbols {

std::vector<uint64_t> parse_backtrace(std::string_view text) {
  std::vector<uint64_t> addresses;
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    std::string_view token = text.substr(at, end - at);
    at = end;
    if (token.size() < 3 || token.substr(0, 2) != "0x") continue;
    token.remove_prefix(2);
    uint64_t address = 0;
    const auto [stop, error] =
        std::from_chars(token.data(), token.data() + token.size(), address, 16);
    if (error == std::errc() && stop == token.data() + token.size()) addresses.push_back(address);
  }
  return addresses;
}

std::vector<Frame> symbolize_backtrace(const KernelSymbols& symbols,
                                       const std::vector<uint64_t>& addresses,
                                       std::string_view probe_module) {
  std::vector<Frame> frames;
  frames.reserve(addresses.size());
  for (const uint64_t address : addresses) {
    Frame frame;
    frame.address = address;
    if (const auto symbol = symbols.lookup(address)) {
      if (!probe_module.empty() && symbol->module == probe_module) continue;
      frame.function = symbol->name;
      frame.module = symbol->module;
    }
    frames.push_back(std::move(frame));
  }
  return frames;
}

}  // namespace iotap::symbols
