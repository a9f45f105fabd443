// iotap top: (being written; see issue 4).
#include "util/error.h"
#include "verbs/verbs.h"

namespace iotap::verbs {

int top(Args /*args*/) { throw UserError("iotap top is not written yet"); }

}  // namespace iotap::verbs
