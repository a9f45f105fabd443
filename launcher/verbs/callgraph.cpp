// iotap callgraph: (being written; see issue 4).
#include "util/error.h"
#include "verbs/verbs.h"

namespace iotap::verbs {

int callgraph(Args /*args*/) { throw UserError("iotap callgraph is not written yet"); }

}  // namespace iotap::verbs
