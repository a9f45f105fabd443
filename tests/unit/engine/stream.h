#pragma once
// Writes event streams for tests, in the format of docs/event-format.md, numbering each CPU's
// events as the tapsets do.
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "iotap/engine.h"

namespace iotap::engine::testing {

constexpr uint32_t kMd0 = make_dev(9, 0);
constexpr uint32_t ram(uint32_t n) {
  return make_dev(1, n);
}
constexpr uint32_t dm(uint32_t n) {
  return make_dev(254, n);
}
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kUs = 1'000;

class Stream {
 public:
  explicit Stream(bool header = true) {
    if (header) text_ = "iotap-events 1\n";
  }

  Stream& rs(uint64_t ts, uint32_t cpu, int tid, uint64_t request, uint64_t offset,
             uint64_t size = 1048576) {
    return line("RS", ts, cpu, tid,
                std::to_string(request) + " " + std::to_string(tid % 100) + " " +
                    std::to_string(request - 1) + " " + std::to_string(offset) + " " +
                    std::to_string(size));
  }
  Stream& rd(uint64_t ts, uint32_t cpu, int tid, uint64_t request, int64_t result = 1048576) {
    return line("RD", ts, cpu, tid, std::to_string(request) + " " + std::to_string(result));
  }
  Stream& q(uint64_t ts, uint32_t cpu, int tid, uint64_t bio, uint32_t dev, uint64_t sector,
            uint64_t bytes) {
    return line("Q", ts, cpu, tid,
                hex(bio) + " " + std::to_string(dev) + " " + std::to_string(sector) + " " +
                    std::to_string(bytes) + " R");
  }
  Stream& x(uint64_t ts, uint32_t cpu, int tid, uint64_t bio, uint64_t parent, uint64_t sector,
            uint64_t bytes) {
    return line("X", ts, cpu, tid,
                hex(bio) + " " + hex(parent) + " " + std::to_string(sector) + " " +
                    std::to_string(bytes) + " R");
  }
  Stream& m(uint64_t ts, uint32_t cpu, int tid, uint64_t bio, uint32_t dev, uint64_t sector,
            uint64_t bytes, uint32_t from_dev, uint64_t from_sector) {
    return line("M", ts, cpu, tid,
                hex(bio) + " " + std::to_string(dev) + " " + std::to_string(sector) + " " +
                    std::to_string(bytes) + " " + std::to_string(from_dev) + " " +
                    std::to_string(from_sector));
  }
  Stream& c(uint64_t ts, uint32_t cpu, int tid, uint64_t bio, int error = 0) {
    return line("C", ts, cpu, tid, hex(bio) + " " + std::to_string(error));
  }
  // A request-based disk issues request `rq` (first bio `bio`) and completes it.
  Stream& i(uint64_t ts, uint32_t cpu, int tid, uint64_t rq, uint32_t dev, uint64_t sector,
            uint64_t bytes, uint64_t bio) {
    return line("I", ts, cpu, tid,
                hex(rq) + " " + std::to_string(dev) + " " + std::to_string(sector) + " " +
                    std::to_string(bytes) + " " + hex(bio));
  }
  Stream& d(uint64_t ts, uint32_t cpu, int tid, uint64_t rq, uint32_t dev, uint64_t sector,
            uint64_t bytes, int error = 0) {
    return line("D", ts, cpu, tid,
                hex(rq) + " " + std::to_string(dev) + " " + std::to_string(sector) + " " +
                    std::to_string(bytes) + " " + std::to_string(error));
  }
  // A system call starts (SS) on `dev`: `call` is its name ("pread64"), as the tapset prints it.
  Stream& ss(uint64_t ts, uint32_t cpu, int tid, const std::string& call, uint32_t dev,
             uint64_t offset, uint64_t size, bool direct = true) {
    return line("SS", ts, cpu, tid,
                call + " " + std::to_string(dev) + " 12 " + std::to_string(offset) + " " +
                    std::to_string(size) + (direct ? " 1" : " 0"));
  }
  Stream& sd(uint64_t ts, uint32_t cpu, int tid, int64_t result) {
    return line("SD", ts, cpu, tid, std::to_string(result));
  }
  // A bio queued for writing (Q with W); `bytes` 0 is a flush.
  Stream& qw(uint64_t ts, uint32_t cpu, int tid, uint64_t bio, uint32_t dev, uint64_t sector,
             uint64_t bytes) {
    return line("Q", ts, cpu, tid,
                hex(bio) + " " + std::to_string(dev) + " " + std::to_string(sector) + " " +
                    std::to_string(bytes) + " W");
  }
  // A provider's request begins (PB) at `level`; `key` 0 pairs its end by thread.
  Stream& pb(uint64_t ts, uint32_t cpu, int tid, uint32_t level, uint64_t key, char op,
             uint64_t file = 0, uint64_t offset = 0, uint64_t size = 0) {
    return line("PB", ts, cpu, tid,
                std::to_string(level) + " " + std::to_string(key) + " " + std::string(1, op) + " " +
                    std::to_string(file) + " " + std::to_string(offset) + " " +
                    std::to_string(size));
  }
  Stream& pt(uint64_t ts, uint32_t cpu, int tid, uint32_t level, uint64_t key,
             const std::string& text) {
    return line("PT", ts, cpu, tid, std::to_string(level) + " " + std::to_string(key) + " " + text);
  }
  Stream& pe(uint64_t ts, uint32_t cpu, int tid, uint32_t level, uint64_t key, int64_t result = 0) {
    return line("PE", ts, cpu, tid,
                std::to_string(level) + " " + std::to_string(key) + " " + std::to_string(result));
  }
  // A line as it is, e.g. the program's own output.
  Stream& raw(const std::string& text) {
    text_ += text + "\n";
    return *this;
  }
  // Skips `n` sequence numbers on `cpu`, as lost events would.
  Stream& lose(uint32_t cpu, uint64_t n) {
    seq_[cpu] += n;
    return *this;
  }

  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  static std::string hex(uint64_t value) {
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%llx", static_cast<unsigned long long>(value));
    return buffer.data();
  }
  Stream& line(const char* kind, uint64_t ts, uint32_t cpu, int tid, const std::string& rest) {
    text_ += std::string(kind) + " " + std::to_string(ts) + " " + std::to_string(cpu) + " " +
             std::to_string(++seq_[cpu]) + " " + std::to_string(tid) + " " + rest + "\n";
    return *this;
  }

  std::string text_;
  std::map<uint32_t, uint64_t> seq_;
};

inline StackDevice device(std::string name, uint32_t dev, std::string spec, std::string parent) {
  StackDevice d;
  d.name = std::move(name);
  d.dev = dev;
  d.spec = std::move(spec);
  d.parent = std::move(parent);
  return d;
}

// md0 = raid0 over `n` ram disks (ram0..), chunk 512 KiB, data offset 4096 sectors.
inline std::vector<StackDevice> raid0(uint32_t n) {
  std::vector<StackDevice> stack{device("md0", kMd0, "raid0(ram*" + std::to_string(n) + ")", "")};
  stack[0].md_level = "raid0";
  stack[0].chunk_bytes = 524288;
  for (uint32_t i = 0; i < n; ++i) {
    stack[0].md_members.emplace_back("ram" + std::to_string(i), 4096);
    stack.push_back(device("ram" + std::to_string(i), ram(i), "ram", "md0"));
  }
  return stack;
}

inline Result run(const std::vector<StackDevice>& stack, const std::string& text,
                  const Options& options = {}) {
  Engine engine(stack, options);
  engine.feed(text);
  return engine.finish();
}

inline const DeviceResult* find(const Result& result, const std::string& name) {
  for (const auto& d : result.devices)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace iotap::engine::testing
