// libFuzzer target for the --stack grammar (launcher/target/vm/stack_spec.h) and the plan made
// from it (stack_plan.h): any text is either refused with a UserError or parsed into a tree that
// plans into devices; nothing else (a crash, a hang, another exception) is acceptable.
// parse_size, the sizes' own public parser, gets the same text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "iotap/target/stack_plan.h"
#include "iotap/target/stack_spec.h"
#include "iotap/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const iotap::vm::StackNode top = iotap::vm::parse_stack_spec(text);
    if (top.spec.empty()) std::abort();
    const iotap::vm::StackPlan plan = iotap::vm::plan_stack(top);
    if (plan.devices.empty() || plan.devices.front().parent != -1 || plan.top_path().empty())
      std::abort();
  } catch (const iotap::UserError& e) {
    if (std::string_view(e.what()).empty()) std::abort();
  }
  try {
    (void)iotap::vm::parse_size(text);
  } catch (const iotap::UserError&) {
  }
  return 0;
}
