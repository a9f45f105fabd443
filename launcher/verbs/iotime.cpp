// iotap iotime: (being written; see issue 4).
#include "util/error.h"
#include "verbs/verbs.h"

namespace iotap::verbs {

int iotime(Args /*args*/) { throw UserError("iotap iotime is not written yet"); }

}  // namespace iotap::verbs
