#include "iotap/symbols/kernel_symbols.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace iotap::symbols {
namespace {

bool is_text_type(char type) {
  return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

std::optional<uint64_t> parse_hex(std::string_view digits) {
  uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::string hex(uint64_t value) {
  std::array<char, 24> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "0x%llx", static_cast<unsigned long long>(value));
  return buffer.data();
}

// "raid0 24576 1 - Live 0xffffffffc038c000 (OE)": name, size, refs, users, state, address.
std::optional<std::pair<std::string_view, std::pair<uint64_t, uint64_t>>> parse_module_line(
    std::string_view line) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < line.size() && words.size() < 6) {
    const size_t end = std::min(line.find(' ', at), line.size());
    if (end > at) words.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  if (words.size() < 6 || words[5].substr(0, 2) != "0x") return std::nullopt;
  uint64_t size = 0;
  const auto [size_end, size_error] =
      std::from_chars(words[1].data(), words[1].data() + words[1].size(), size);
  const auto base = parse_hex(words[5].substr(2));
  if (size_error != std::errc() || size_end != words[1].data() + words[1].size() || !base ||
      *base == 0)
    return std::nullopt;
  return std::make_pair(words[0], std::make_pair(*base, *base + size));
}

// What follows an address that stap's print_backtrace() (or print_stack()) has named already:
// "0xffffffffaa13d330 : bio_endio+0x10/0x40 [kernel]", or "0xffffffffc0524151 [raid0+0x1/0x90]"
// where stap knew only the module. The address column stays an address there.
bool named_by_stap(std::string_view after_address) {
  return after_address.starts_with(" : ") || after_address.starts_with(" [");
}

}  // namespace

bool KernelSymbols::is_section_marker(std::string_view name) {
  const auto ends_with = [name](std::string_view tail) {
    return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
  };
  return name == "_stext" || name == "_etext" || name == "_text" ||
         (name.substr(0, 2) == "__" && (ends_with("_start") || ends_with("_end")));
}

const KernelSymbols::ModuleExtent* KernelSymbols::module_extent(std::string_view name) const {
  for (const auto& module : modules_) {
    if (module.name == name) return &module;
  }
  return nullptr;
}

KernelSymbols KernelSymbols::parse(std::string kallsyms) {
  KernelSymbols table;
  table.text_ = std::move(kallsyms);
  const std::string_view text = table.text_;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    // ADDRESS TYPE NAME[\t[MODULE]]
    if (const auto module = parse_module_line(line)) {
      table.modules_.push_back({module->first, module->second.first, module->second.second});
      continue;
    }
    const size_t first_space = line.find(' ');
    if (first_space == std::string_view::npos || first_space + 3 >= line.size()) continue;
    if (line[first_space + 2] != ' ' || !is_text_type(line[first_space + 1])) continue;
    const auto address = parse_hex(line.substr(0, first_space));
    if (!address || *address == 0) continue;
    std::string_view name = line.substr(first_space + 3);
    std::string_view module;
    if (const size_t tab = name.find('\t'); tab != std::string_view::npos) {
      module = name.substr(tab + 1);
      name = name.substr(0, tab);
      if (module.size() >= 2 && module.front() == '[' && module.back() == ']')
        module = module.substr(1, module.size() - 2);
    }
    if (name.empty()) continue;
    table.entries_.push_back({*address, name, module});
  }
  std::stable_sort(table.entries_.begin(), table.entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.address < b.address; });
  return table;
}

std::optional<Symbolized> KernelSymbols::lookup(uint64_t address) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), address,
                                [](uint64_t value, const Entry& e) { return value < e.address; });
  if (after == entries_.begin()) return std::nullopt;
  auto found = std::prev(after);
  // Section markers (__sched_text_start) share their address with a real function: name that.
  for (auto same = found; is_section_marker(found->name) && same != entries_.begin() &&
                          std::prev(same)->address == found->address;) {
    --same;
    if (!is_section_marker(same->name)) found = same;
  }
  const Entry& entry = *found;
  if (!entry.module.empty()) {
    if (const auto* extent = module_extent(entry.module);
        extent != nullptr && address >= extent->end)
      return std::nullopt;
  }
  // The last symbol of a module (or of vmlinux) has no next symbol to bound it.
  const bool last_of_its_image = after == entries_.end() || after->module != entry.module;
  if (last_of_its_image && address - entry.address > kMaxSymbolSize) return std::nullopt;
  return Symbolized{entry.name, address - entry.address, entry.module};
}

std::string KernelSymbols::describe(uint64_t address) const {
  const auto symbol = lookup(address);
  if (!symbol) return hex(address);
  std::string out(symbol->name);
  out += "+" + hex(symbol->offset);
  if (!symbol->module.empty()) {
    out += " [";
    out += symbol->module;
    out += "]";
  }
  return out;
}

std::string KernelSymbols::symbolize_text(std::string_view text) const {
  constexpr size_t kDigits = 16;
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    const size_t found = text.find("0xffff", at);
    if (found == std::string_view::npos) break;
    const size_t digits_end = found + 2 + kDigits;
    const bool token_start =
        found == 0 || !(std::isalnum(static_cast<unsigned char>(text[found - 1])) != 0);
    const bool token_end = digits_end <= text.size() &&
                           (digits_end == text.size() ||
                            std::isxdigit(static_cast<unsigned char>(text[digits_end])) == 0);
    std::optional<uint64_t> address;
    if (token_start && token_end && !named_by_stap(text.substr(digits_end)))
      address = parse_hex(text.substr(found + 2, kDigits));
    out.append(text.substr(at, found - at));
    if (address) {
      out += describe(*address);
      at = digits_end;
    } else {
      out += "0x";
      at = found + 2;
    }
  }
  out.append(text.substr(at));
  return out;
}

bool addresses_hidden(std::string_view kallsyms) {
  bool any = false;
  size_t start = 0;
  while (start < kallsyms.size()) {
    const size_t space = kallsyms.find(' ', start);
    if (space == std::string_view::npos) break;
    const auto address = parse_hex(kallsyms.substr(start, space - start));
    if (address && *address != 0) return false;
    any = any || address.has_value();
    const size_t end = kallsyms.find('\n', space);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return any;
}

}  // namespace iotap::symbols
