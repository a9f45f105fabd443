#include <cstdio>
#include <string>

#include "iotap/callgraph/formats.h"

namespace iotap::callgraph {
namespace {

std::string microseconds(uint64_t ns) {
  std::string out(32, '\0');
  const int size = std::snprintf(out.data(), out.size(), "%.3f", static_cast<double>(ns) / 1000.0);
  out.resize(static_cast<size_t>(size));
  return out;
}

class TextWriter {
 public:
  TextWriter(const CallGraph& graph, std::string_view program) : graph_(graph), program_(program) {}

  void thread(const ThreadCalls& thread) {
    out_ += "thread " + std::to_string(thread.tid) + " (pid " + std::to_string(thread.pid) + ")\n";
    for (const Call& call : thread.calls) this->call(call, thread, 0);
  }

  std::string take() { return std::move(out_); }

 private:
  void line(uint64_t ns, const ThreadCalls& thread, size_t depth, std::string_view arrow,
            const Call& call, std::string_view detail) {
    std::string time = microseconds(ns - graph_.start_ns);
    if (time.size() < kTimeWidth) time.insert(0, kTimeWidth - time.size(), ' ');
    out_ += time + " " + std::string(program_) + "(" + std::to_string(thread.tid) +
            "):" + std::string(depth, ' ') + std::string(arrow) + call.function +
            (call.side == Side::kKernel ? " [k]" : "");
    if (!detail.empty()) out_ += " " + std::string(detail);
  }

  void call(const Call& call, const ThreadCalls& thread, size_t depth) {
    line(call.entry_ns, thread, depth, "->", call, call.arguments);
    out_ += "\n";
    for (const Call& callee : call.calls) this->call(callee, thread, depth + 1);
    if (call.unwound) {
      line(*call.return_ns, thread, depth, "<-", call, "");
      out_ +=
          " (unwound by an exception, " + microseconds(*call.return_ns - call.entry_ns) + " us)\n";
    } else if (call.return_ns) {
      line(*call.return_ns, thread, depth, "<-", call, call.return_value);
      out_ += " (" + microseconds(*call.return_ns - call.entry_ns) + " us)\n";
    } else {
      line(thread.last_ns, thread, depth, "<-", call, "");
      out_ += " (no return seen: still running when tracing stopped)\n";
    }
  }

  static constexpr size_t kTimeWidth = 12;
  const CallGraph& graph_;
  std::string_view program_;
  std::string out_;
};

}  // namespace

std::string text_format(const CallGraph& graph, std::string_view program) {
  TextWriter writer(graph, program);
  for (const ThreadCalls& thread : graph.threads) writer.thread(thread);
  return writer.take();
}

}  // namespace iotap::callgraph
