#include "replay.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <latch>
#include <memory>
#include <thread>

#include "error.h"
#include "usdt.h"

namespace io_replayer {

namespace {

uint64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(now.tv_nsec);
}

void sleep_until(uint64_t when_ns) {
  timespec when{.tv_sec = static_cast<time_t>(when_ns / 1'000'000'000ULL),
                .tv_nsec = static_cast<long>(when_ns % 1'000'000'000ULL)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, nullptr) == EINTR) {
  }
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// O_DIRECT wants the buffer aligned too; 4096 suits every device.
std::unique_ptr<char, FreeDeleter> aligned_buffer(uint64_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, kScaledAlignment, bytes == 0 ? kScaledAlignment : bytes) != 0)
    throw Error("cannot allocate a buffer of " + std::to_string(bytes) + " bytes");
  auto buffer = std::unique_ptr<char, FreeDeleter>(static_cast<char*>(p));
  // What writes write: a recognisable pattern, not the previous contents of memory.
  for (uint64_t i = 0; i < bytes; ++i) buffer.get()[i] = static_cast<char>('a' + i % 26);
  return buffer;
}

// Reads land in `read_buffer`; writes write `write_buffer`, which keeps its pattern.
int64_t issue(const Step& step, const Device& device, char* read_buffer, const char* write_buffer) {
  const int fd = device.fd(step.direct);
  const auto off = static_cast<off_t>(step.offset);
  ssize_t done = 0;
  switch (step.op) {
    case 'W':
      done = ::pwrite(fd, write_buffer, step.size, off);
      break;
    case 'F':
      done = step.datasync ? ::fdatasync(fd) : ::fsync(fd);
      break;
    default:
      done = ::pread(fd, read_buffer, step.size, off);
      break;
  }
  return done < 0 ? -static_cast<int64_t>(errno) : static_cast<int64_t>(done);
}

// Nothing in here throws: the buffer and `out` were made before the thread started.
void replay_thread(int index, const std::vector<Step>& steps, const Device& device,
                   const Pace& pace, const std::atomic<uint64_t>& start, std::latch& go,
                   char* read_buffer, const char* write_buffer, std::vector<Issued>& out) {
  const auto tid = static_cast<int>(::syscall(SYS_gettid));
  IO_REPLAYER_THREAD_START(index, tid);
  go.wait();
  const uint64_t t0 = start.load();
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step& step = steps[k];
    if (!pace.fast) sleep_until(t0 + due_ns(step, pace));
    const uint64_t issued = monotonic_ns();
    const int op = step.op;  // an int, as probes.d declares it (a char would be 1 byte)
    IO_REPLAYER_REQUEST_START(step.id, index, op, step.offset, step.size, step.direct ? 1 : 0);
    const int64_t result = issue(step, device, read_buffer, write_buffer);
    IO_REPLAYER_REQUEST_DONE(step.id, index, op, step.offset, step.size, result);
    const uint64_t done = monotonic_ns();
    out[k] = Issued{.issued_ns = issued - t0, .latency_ns = done - issued, .result = result};
  }
  IO_REPLAYER_THREAD_END(index, static_cast<uint64_t>(steps.size()));
}

}  // namespace

uint64_t due_ns(const Step& step, const Pace& pace) {
  if (pace.fast) return 0;
  return static_cast<uint64_t>(static_cast<double>(step.recorded_start) / pace.speed);
}

ReplayResult replay(const Plan& plan, const Device& device, const Pace& pace) {
  ReplayResult result;
  result.threads.resize(plan.threads.size());
  std::vector<std::unique_ptr<char, FreeDeleter>> read_buffers;
  std::vector<std::unique_ptr<char, FreeDeleter>> write_buffers;
  for (size_t i = 0; i < plan.threads.size(); ++i) {
    uint64_t biggest_read = 0;
    uint64_t biggest_write = 0;
    for (const auto& step : plan.threads[i]) {
      uint64_t& biggest = step.op == 'W' ? biggest_write : biggest_read;
      biggest = std::max(biggest, step.size);
    }
    read_buffers.push_back(aligned_buffer(biggest_read));
    write_buffers.push_back(aligned_buffer(biggest_write));
    result.threads[i].resize(plan.threads[i].size());
  }
  std::atomic<uint64_t> start{0};
  std::latch go(1);
  std::vector<std::jthread> threads;
  threads.reserve(plan.threads.size());
  for (size_t i = 0; i < plan.threads.size(); ++i) {
    threads.emplace_back(replay_thread, static_cast<int>(i), std::cref(plan.threads[i]),
                         std::cref(device), std::cref(pace), std::cref(start), std::ref(go),
                         read_buffers[i].get(), write_buffers[i].get(),
                         std::ref(result.threads[i]));
  }
  start = monotonic_ns();
  go.count_down();
  for (auto& thread : threads) thread.join();
  result.elapsed_ns = monotonic_ns() - start.load();
  for (size_t i = 0; i < plan.threads.size(); ++i) {
    for (size_t k = 0; k < plan.threads[i].size(); ++k) {
      const Step& step = plan.threads[i][k];
      const Issued& issued = result.threads[i][k];
      const bool whole =
          step.op == 'F' ? issued.result == 0 : issued.result == static_cast<int64_t>(step.size);
      if (!whole) ++result.errors;
      if (issued.result > 0) result.bytes += static_cast<uint64_t>(issued.result);
    }
  }
  return result;
}

}  // namespace io_replayer
