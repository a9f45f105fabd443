// libFuzzer target for the --stack grammar
// (launcher/stack_spec/include/iotap/stack_spec/stack_spec.h) and the plan made from it
// (stack_plan.h): any text is either refused with a UserError or parsed into a tree that plans into
// devices; nothing else (a crash, a hang, another exception) is acceptable. parse_size, the sizes'
// own public parser, gets the same text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "iotap/stack_spec/stack_plan.h"
#include "iotap/stack_spec/stack_spec.h"
#include "iotap/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const iotap::stack_spec::StackNode top = iotap::stack_spec::parse_stack_spec(text);
    if (top.spec.empty()) std::abort();
    const iotap::stack_spec::StackPlan plan = iotap::stack_spec::plan_stack(top);
    if (plan.devices.empty() || plan.devices.front().parent != -1 || plan.top_path().empty())
      std::abort();
  } catch (const iotap::UserError& e) {
    if (std::string_view(e.what()).empty()) std::abort();
  }
  try {
    (void)iotap::stack_spec::parse_size(text);
  } catch (const iotap::UserError&) {
  }
  return 0;
}
