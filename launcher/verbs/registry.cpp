#include <array>

#include "verbs/verbs.h"

namespace iotap::verbs {

std::span<const Verb> all() {
  static constexpr std::array kVerbs{
      Verb{"demo", "the incident: a raid0 with one delayed member, found in one command", demo},
      Verb{"diagnose", "which member of the md/dm stack is slow, with the evidence", diagnose},
      Verb{"attribute", "where each read's time goes: layer by layer, device by device", attribute},
      Verb{"run", "compile and run a .stp script against a program (-c) or a pid (-x)", run},
      Verb{"probes", "list a binary's USDT probes with their argument sizes", probes},
  };
  return kVerbs;
}

}  // namespace iotap::verbs
