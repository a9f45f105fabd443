#include <array>

#include "iotap/verbs/verbs.h"

namespace iotap::verbs {

std::span<const Verb> all() {
  static constexpr std::array kVerbs{
      Verb{"demo", "the incident: a raid0 with one delayed member, found in one command", demo},
      Verb{"diagnose", "which member of the md/dm stack is slow, with the evidence", diagnose},
      Verb{"attribute", "where each read's time goes: layer by layer, device by device", attribute},
      Verb{"iotime", "per-device read/write time, count and average, like ioblktime", iotime},
      Verb{"latency", "what the program's threads were blocked on, by reason, like latencytap",
           latency},
      Verb{"callgraph", "an indented call tree of the program's functions while it runs",
           callgraph},
      Verb{"top", "live per-interval rates: submits per device, USDT events per probe", top},
      Verb{"record", "record the program's requests per thread, to replay them on another stack",
           record},
      Verb{"replay", "replay a recording on a stack under the probes: attribution and fidelity",
           replay},
      Verb{"compare", "two attributions (or recordings) side by side, differences marked", compare},
      Verb{"report", "a saved --json attribution as one self-contained HTML page", report},
      Verb{"run", "compile and run a .stp script against a program (-c) or a pid (-x)", run},
      Verb{"probes", "list a binary's USDT probes with their argument sizes", probes},
      Verb{"providers",
           "the request sources iotap follows (PostgreSQL, yours): check one, see its script",
           providers},
      Verb{"guest", "keep one guest running for many --target vm runs (IOTAP_GUEST)", guest},
      Verb{"doctor", "what this machine can trace and what is missing, with the fix for each",
           doctor},
  };
  return kVerbs;
}

}  // namespace iotap::verbs
