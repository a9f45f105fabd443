#include "note_descriptor.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "probe_arguments.h"

namespace iotap::usdt {
namespace {

std::uint64_t read_address(std::span<const std::uint8_t> bytes, AddressFormat format) {
  const std::size_t size = address_size(format.elf_class);
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t from = format.byte_order == ByteOrder::kBig ? i : size - 1 - i;
    value = (value << 8) | bytes[from];
  }
  return value;
}

// Takes one NUL-terminated string off the front of `rest`; nothing if the NUL is missing.
bool take_string(std::span<const std::uint8_t>& rest, std::string& out) {
  const auto nul = std::find(rest.begin(), rest.end(), std::uint8_t{0});
  if (nul == rest.end()) {
    return false;
  }
  const auto length = static_cast<std::size_t>(nul - rest.begin());
  out.assign(reinterpret_cast<const char*>(rest.data()), length);
  rest = rest.subspan(length + 1);
  return true;
}

// Probe names end up in tables, JSON and stap scripts; garbage here means a corrupted note.
bool is_printable(std::string_view text, bool allow_space) {
  return std::all_of(text.begin(), text.end(), [allow_space](char c) {
    return (c > ' ' && c < 0x7f) || (allow_space && c == ' ');
  });
}

// For messages: a corrupted name must not put control bytes on the user's terminal.
std::string excerpt(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string out(text.substr(0, kMax));
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c < ' ' || c >= 0x7f; }, '?');
  return text.size() <= kMax ? out : out + "...";
}

}  // namespace

Expected<Probe> parse_note_descriptor(std::span<const std::uint8_t> desc, AddressFormat format) {
  const std::size_t word = address_size(format.elf_class);
  if (desc.size() < 3 * word) {
    return Unexpected{"descriptor is " + std::to_string(desc.size()) +
                      " bytes, too short for the three " + std::to_string(word) +
                      "-byte addresses it starts with"};
  }
  Probe probe;
  probe.pc = read_address(desc.subspan(0, word), format);
  probe.base = read_address(desc.subspan(word, word), format);
  probe.semaphore = read_address(desc.subspan(2 * word, word), format);

  std::span<const std::uint8_t> rest = desc.subspan(3 * word);
  if (!take_string(rest, probe.provider)) {
    return Unexpected{"provider name is not NUL-terminated within the descriptor"};
  }
  if (probe.provider.empty() || !is_printable(probe.provider, false)) {
    return Unexpected{"provider name '" + excerpt(probe.provider) + "' is empty or not printable"};
  }
  if (!take_string(rest, probe.name)) {
    return Unexpected{"probe name after provider '" + excerpt(probe.provider) +
                      "' is not NUL-terminated within the descriptor"};
  }
  const std::string who = "probe " + probe.provider + ":" + excerpt(probe.name);
  if (probe.name.empty() || !is_printable(probe.name, false)) {
    return Unexpected{who + ": name is empty or not printable"};
  }

  std::string arg_text;
  if (!rest.empty() && !take_string(rest, arg_text)) {
    return Unexpected{who + ": argument string is not NUL-terminated within the descriptor"};
  }
  if (!is_printable(arg_text, true)) {
    return Unexpected{who + ": argument string has unprintable bytes"};
  }
  auto args = parse_arguments(arg_text);
  if (!args) {
    return Unexpected{who + ": " + args.error()};
  }
  probe.args = std::move(args).value();
  return probe;
}

}  // namespace iotap::usdt
