#pragma once
// The run that iotap iotime and iotap top share: a script printing labelled tables (one per
// interval, then the whole run; see table_blocks.h), shown as text, as a live view redrawn in
// place on a terminal, or as JSON lines (one object per table).
#include <functional>
#include <string>
#include <vector>

#include "iotap/interval/table_blocks.h"
#include "iotap/session/target_options.h"
#include "iotap/session/traced_run.h"
#include "iotap/stack.h"
#include "iotap/stack/stack_json.h"

namespace iotap::session {
using interval::TableBlock;

struct IntervalVerb {
  std::string schema;  // "iotap.iotime/1": the first key of every JSON line
  TracedScript script;
  // A table's JSON fields (the schema key comes first, added by the run).
  std::function<Json(const TableBlock&, const std::vector<StackDevice>&)> to_json;
  // Redraw each interval's table in place when stdout is a terminal (top); otherwise tables
  // follow one another.
  bool live_view = false;
  std::string live_title;  // the live view's first line
};

// Runs it and returns iotap's exit status. Text: tables and the program's own output as they
// arrive, then "loss: ...". JSON: one line per table on stdout (or -o), the program's output on
// stderr; the whole-run line also carries "exit_status" and "loss".
int run_interval_verb(const IntervalVerb& verb, const TargetOptions& options);

}  // namespace iotap::session
