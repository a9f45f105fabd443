#include "iotap/util/json_text.h"

namespace iotap {

std::string to_text(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace iotap
