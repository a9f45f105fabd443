#pragma once
// Streams of a provider's queries for the engine's and the reports' tests.
#include "stream.h"

namespace iotap::engine::testing {

inline Options queries() {
  Options options;
  options.levels = {{"query", "queries"}, {"smgr_read", "smgr reads"}};
  options.request_provider = "postgresql";
  options.requests = RequestSource::syscall;
  options.slowest = 3;
  return options;
}

// `count` queries, one after another on one thread: 1 ms of CPU, an smgr read whose pread goes
// to ram(member) taking `member_us` there (pread: 40 us + member_us), 1 ms more of CPU.
inline Stream queries_in_a_row(uint32_t count, uint32_t slow_member, uint64_t slow_us) {
  Stream s;
  const int tid = 500;
  uint64_t t = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t member = i % 2;
    const uint64_t d = (member == slow_member ? slow_us : 20) * kUs;
    const uint64_t bio = 0x1000 + 0x10 * i;
    s.pb(t, 0, tid, 0, 0, '-');
    t += kMs;
    s.pb(t, 0, tid, 1, 0, 'R', 16384, 0, 8192)
        .ss(t, 0, tid, "pread64", kMd0, 0, 8192)
        .q(t + 10 * kUs, 0, tid, bio, kMd0, member == 0 ? 0 : 1024, 8192)
        .m(t + 12 * kUs, 0, tid, bio + 1, ram(member), 4096, 8192, kMd0, member == 0 ? 0 : 1024)
        .q(t + 13 * kUs, 0, tid, bio + 1, ram(member), 4096, 8192)
        .c(t + 13 * kUs + d, 0, 0, bio + 1)
        .c(t + 20 * kUs + d, 0, 0, bio)
        .sd(t + 40 * kUs + d, 0, tid, 8192)
        .pe(t + 40 * kUs + d, 0, tid, 1, 0, 8192);
    t += 40 * kUs + d + kMs;
    s.pe(t, 0, tid, 0, 0, 0);
    t += 100 * kUs;
  }
  return s;
}

inline Stream twenty_queries(uint32_t slow_member, uint64_t slow_us) {
  return queries_in_a_row(20, slow_member, slow_us);
}

}  // namespace iotap::engine::testing
