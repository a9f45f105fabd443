#include "iotap/session/number_option.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "iotap/util/error.h"

namespace iotap::session {

uint64_t parse_positive_number(const NumberOption& option, const std::string& text) {
  const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (digits_only && (error == std::errc::result_out_of_range || value > option.most)) {
    throw UserError(std::string(option.name) + " must be at most " + std::to_string(option.most) +
                    (*option.unit != '\0' ? " " : "") + option.unit + ", got '" + text + "'");
  }
  if (!digits_only || error != std::errc() || end != text.data() + text.size() || value == 0) {
    throw UserError(std::string(option.name) + " must be " + option.what + ", got '" + text + "'");
  }
  return value;
}

boost::program_options::typed_value<std::string>* positive_number(
    const NumberOption& option, std::function<void(uint64_t)> store) {
  return boost::program_options::value<std::string>()->notifier(
      [option, store = std::move(store)](const std::string& text) {
        store(parse_positive_number(option, text));
      });
}

}  // namespace iotap::session
