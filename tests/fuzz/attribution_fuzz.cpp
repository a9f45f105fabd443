// libFuzzer target for an attribution read back from a file (iotap report, iotap compare): any
// text is either not JSON, refused by report::check_attribution with a UserError naming the
// file, or drawn as a page (report::html) and compared (compare::compare, compare_text) without
// an exception. Compared with itself, nothing differs: no row is marked.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iotap/compare/compare.h"
#include "iotap/report/attribution_check.h"
#include "iotap/report/html.h"
#include "iotap/util/error.h"

namespace {

bool any_notable(const iotap::Json& value) {
  if (value.is_object()) {
    if (const auto it = value.find("notable"); it != value.end() && *it == true) return true;
    for (const auto& [key, member] : value.items())
      if (any_notable(member)) return true;
  } else if (value.is_array()) {
    for (const auto& item : value)
      if (any_notable(item)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const iotap::Json doc = iotap::Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  try {
    iotap::report::check_attribution(doc, "fuzz.json");
  } catch (const iotap::UserError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.json")) std::abort();
    return 0;
  }
  const std::string page = iotap::report::html(doc, "fuzz.json");
  if (!page.ends_with("</body></html>\n")) std::abort();
  const iotap::Json comparison = iotap::compare::compare(doc, "a.json", doc, "b.json");
  if (any_notable(comparison)) std::abort();
  if (iotap::compare::compare_text(comparison).empty()) std::abort();
  return 0;
}
