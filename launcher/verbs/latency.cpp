// iotap latency: (being written; see issue 4).
#include "util/error.h"
#include "verbs/verbs.h"

namespace iotap::verbs {

int latency(Args /*args*/) { throw UserError("iotap latency is not written yet"); }

}  // namespace iotap::verbs
