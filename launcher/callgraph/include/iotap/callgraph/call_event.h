#pragma once
// One line of examples/callgraph.stp's output as a plain struct. The script prints
//   cg <TAB> >|<|! <TAB> ns <TAB> pid <TAB> tid <TAB> u|k <TAB> function <TAB> detail
// tab-separated because a function's arguments ($$parms) hold spaces. "!" says that an
// exception unwound the thread's innermost calls (function "unwound", detail "frames=N").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iotap::callgraph {

enum class Direction { kEntry, kReturn, kUnwound };
enum class Side { kUser, kKernel };

struct CallEvent {
  Direction direction = Direction::kEntry;
  uint64_t ns = 0;  // gettimeofday_ns() in the target: comparable across CPUs
  int pid = 0;
  int tid = 0;
  Side side = Side::kUser;
  std::string function;
  std::string detail;  // the arguments on entry; the return value on return ("" when void)
};

// The event on `line` (without its newline), or nothing when the line is not one of the
// script's: the traced program's own output shares the stream.
std::optional<CallEvent> parse_call_event(std::string_view line);

}  // namespace iotap::callgraph
