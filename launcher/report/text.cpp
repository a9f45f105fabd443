#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "iotap/report.h"
#include "levels_text.h"
#include "table.h"
#include "words.h"

namespace iotap::report {
namespace {

using engine::Latency;
using engine::Result;
using Align = Table::Align;

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string latency_text(const Latency& l) {
  return "mean " + us(l.mean_us) + ", p50 " + us(l.p50_us) + ", p95 " + us(l.p95_us) + ", p99 " +
         us(l.p99_us) + ", max " + us(l.max_us);
}

// Requests named by a program's USDT probes that are all reads (block_hasher's): the reports
// call them reads. A replay's writes and flushes come through USDT probes too.
bool usdt_reads_only(const Result& r) {
  return r.request_source == engine::RequestSource::usdt &&
         std::ranges::all_of(r.request_kinds,
                             [](const engine::RequestKind& k) { return k.op == "read"; });
}

std::string usdt_probes_of(const Result& r) {
  return (r.request_provider.empty() ? std::string("the program") : r.request_provider) +
         "'s USDT probes";
}

std::string kinds_table(const Result& r);

// USDT reads: one line. Otherwise (system calls, a replay's writes and flushes): a line for
// all, a row per kind. With a provider's levels: the levels, then the I/O inside them.
std::string requests_lines(const Result& r) {
  if (!r.levels.empty()) {
    uint64_t leaves = 0;
    for (const auto& k : r.request_kinds) leaves += k.count;
    return levels_lines(r) + "I/O inside them: " + plural(leaves, "call", "calls") +
           (r.request_source == engine::RequestSource::syscall ? " (system calls on the stack)"
                                                               : "") +
           "\n" + kinds_table(r);
  }
  const Latency& l = r.requests;
  if (usdt_reads_only(r)) {
    std::string text = "reads: " + plural(l.count, "read", "reads") + " (" + usdt_probes_of(r) +
                       "), " + plural(r.request_errors, "error", "errors");
    if (l.count > 0) text += "; latency us: " + latency_text(l);
    if (r.requests_without_block_io > 0)
      text += "; " + std::to_string(r.requests_without_block_io) + " reached no device";
    return text + "\n";
  }
  std::string text =
      "requests: " +
      (r.request_source == engine::RequestSource::usdt
           ? plural(l.count, "request", "requests") + " (" + usdt_probes_of(r) + "), "
           : plural(l.count, "system call", "system calls") +
                 " on the stack (read, write, fsync and their kin), ") +
      plural(r.request_errors, "error", "errors");
  if (l.count > 0) text += "; latency us: " + latency_text(l);
  text += "\n";
  return text + kinds_table(r);
}

// A row per kind of request (read, write, flush); with levels, of the I/O inside them.
std::string kinds_table(const Result& r) {
  if (r.request_kinds.empty()) return "";
  std::string text;
  Table table({{"kind", Align::left},
               {"calls", Align::right},
               {"errors", Align::right},
               {"no block I/O", Align::right},
               {"mean us", Align::right},
               {"p50 us", Align::right},
               {"p99 us", Align::right},
               {"max us", Align::right}});
  for (const auto& k : r.request_kinds)
    table.row({k.op, std::to_string(k.count), std::to_string(k.errors),
               std::to_string(k.without_block_io), us(k.latency.mean_us), us(k.latency.p50_us),
               us(k.latency.p99_us), us(k.latency.max_us)});
  text += table.render("  ");
  if (r.requests_without_block_io > 0)
    text += "  (no block I/O: served from the page cache, or buffered for writeback later)\n";
  return text;
}

// Block I/O that no request caused, in a line of its own: it is charged to no request.
std::string unrequested_line(const Result& r) {
  const auto& u = r.unrequested;
  if (u.reads + u.writes + u.flushes + u.others == 0) return "";
  std::string items;
  const auto add = [&](uint64_t n, const char* one, const char* many) {
    if (n == 0) return;
    if (!items.empty()) items += ", ";
    items += plural(n, one, many);
  };
  add(u.reads, "read", "reads");
  add(u.writes, "write", "writes");
  add(u.flushes, "flush", "flushes");
  add(u.others, "other bio", "other bios");
  return "block I/O no request caused: " + items + " (" + std::to_string(u.bytes) +
         " bytes: readahead, writeback by kernel threads, metadata); charged to no request\n";
}

std::string layers_table(const Result& r) {
  Table table({{"layer", Align::left}, {"mean us", Align::right}, {"share", Align::right}});
  for (const auto& layer : r.layers)
    table.row({layer.name, us(layer.mean_us), percent(layer.share)});
  const std::string whose = r.levels.empty()
                                ? "the requests' time went (critical path, per request"
                                : "the time of the I/O inside them went (critical path, per call";
  return "where " + whose + " that reached a device):\n" + table.render("  ");
}

// The kernel's mean per read (its read ticks / reads), "-" where it kept none or saw no read.
std::string kernel_mean(const KernelDiskStats& kernel, const std::string& device) {
  const auto stats = kernel.find(device);
  if (stats == kernel.end()) return "-";
  const std::optional<double> mean = kernel_read_mean_us(stats->second);
  return mean ? us(*mean) : "-";
}

std::string devices_table(const Result& r, const KernelDiskStats& kernel) {
  std::vector<Table::Column> columns{
      {"device", Align::left},   {"spec", Align::left},    {"parent", Align::left},
      {"ios", Align::right},     {"bytes", Align::right},  {"errors", Align::right},
      {"mean us", Align::right}, {"p50 us", Align::right}, {"p95 us", Align::right},
      {"p99 us", Align::right},  {"max us", Align::right}, {"own us", Align::right}};
  // Only when the target said (--target vm): a column of dashes would say nothing.
  if (!kernel.empty()) columns.push_back({"kernel mean us", Align::right});
  Table table(std::move(columns));
  for (const auto& d : r.devices) {
    const Latency& l = d.latency;
    std::vector<std::string> cells{d.name,
                                   or_dash(d.spec),
                                   or_dash(d.parent),
                                   std::to_string(d.ios),
                                   std::to_string(d.bytes),
                                   std::to_string(d.errors),
                                   us(l.mean_us),
                                   us(l.p50_us),
                                   us(l.p95_us),
                                   us(l.p99_us),
                                   us(l.max_us),
                                   us(d.exclusive_us)};
    if (!kernel.empty()) cells.push_back(kernel_mean(kernel, d.name));
    table.row(std::move(cells));
  }
  return std::string("devices (queue to completion per io; own: not spent in a device below") +
         (kernel.empty() ? "" : "; kernel mean: the kernel's read ticks / reads") + "):\n" +
         table.render("  ");
}

// Request-based disks only: each request's issue to completion. Empty when no device has any.
std::string service_table(const Result& r) {
  Table table({{"device", Align::left},
               {"requests", Align::right},
               {"mean us", Align::right},
               {"p50 us", Align::right},
               {"p95 us", Align::right},
               {"p99 us", Align::right},
               {"max us", Align::right}});
  bool any = false;
  for (const auto& d : r.devices) {
    const Latency& l = d.service;
    if (l.count == 0) continue;
    any = true;
    table.row({d.name, std::to_string(l.count), us(l.mean_us), us(l.p50_us), us(l.p95_us),
               us(l.p99_us), us(l.max_us)});
  }
  if (!any) return "";
  return "\ndisk service (request-based disks: issue to completion per request):\n" +
         table.render("  ");
}

std::string verdict_lines(const Result& r, std::string_view why) {
  const engine::VerdictStatus status = engine::verdict_status(r);
  if (status == engine::VerdictStatus::no_io || status == engine::VerdictStatus::no_block_io) {
    std::string text = "verdict: none: " + verdict_status_sentence(r) + "\n";
    if (!why.empty()) text.append("  ").append(why).append("\n");
    return text;
  }
  const bool shares = status == engine::VerdictStatus::ok;
  std::string text;
  for (const auto& s : r.slow_members) {
    text += "verdict: slow member " + s.name;
    if (!s.spec.empty()) text += " = " + s.spec;
    text += " in " + or_dash(s.parent);
    if (s.member != s.name) text += " under " + s.array;
    text += ": mean " + us(s.mean_us) + " us against " + us(s.siblings_mean_us) + " us for its " +
            plural(s.siblings, "sibling", "siblings");
    if (shares && s.slowest_requests > 0) {
      const std::string unit = unit_plural(r);
      const std::string one = r.levels.empty() ? "request" : r.levels.front().name;
      text += "; " + us(s.share_of_slowest * 100) + "% of the slowest " +
              us(engine::kSlowestFraction * 100) + "% of " + unit + "' time (" +
              plural(s.slowest_requests, one, unit) + ")";
    }
    text += "\n";
  }
  if (shares) text += slowest_unit_line(r);
  // A failing member is the verdict then: "no slow member" above it would read as healthy.
  if (r.slow_members.empty() && r.failing_members.empty()) text += "verdict: no slow member\n";
  for (const auto& f : r.failing_members) {
    text += "verdict: failing member " + f.name;
    if (!f.spec.empty()) text += " = " + f.spec;
    text += " in " + or_dash(f.parent) + ": " + std::to_string(f.errors) + " of " +
            plural(f.ios, "io", "ios") + " failed\n";
  }
  if (!shares) {
    text += "note: " + verdict_status_sentence(r) + "\n";
    if (!why.empty()) text.append("  ").append(why).append("\n");
  }
  return text;
}

std::string loss_line(const Result& r) {
  const auto& l = r.loss;
  std::string items;
  const auto add = [&](uint64_t n, const std::string& what) {
    if (n == 0) return;
    if (!items.empty()) items += ", ";
    items += what;
  };
  add(l.sequence_gaps, plural(l.sequence_gaps, "sequence gap", "sequence gaps") + " (" +
                           plural(l.events_lost, "event", "events") + " lost)");
  add(l.unmatched_completions,
      plural(l.unmatched_completions, "completion", "completions") + " of nothing seen start");
  add(l.malformed_lines, plural(l.malformed_lines, "malformed line", "malformed lines"));
  add(l.skipped_probes, plural(l.skipped_probes, "skipped probe", "skipped probes"));
  add(l.transport_failures,
      plural(l.transport_failures, "transport failure", "transport failures"));
  return "loss: " + (items.empty() ? std::string("none") : items) + "\n";
}

std::string stream_line(const Result& r) {
  const auto& s = r.stream;
  std::string text = "stream: " + plural(r.events, "event", "events") + ", " +
                     plural(s.other_lines, "other line", "other lines");
  if (s.untraced_split_completions > 0)
    text += ", " + std::to_string(s.untraced_split_completions) +
            " completions of bios split inside md/dm (no tracepoint sees them start; not loss)";
  if (s.late_events > 0) text += ", " + plural(s.late_events, "late event", "late events");
  if (s.abandoned_bios > 0)
    text += ", " + plural(s.abandoned_bios, "bio", "bios") + " requeued before completing";
  if (s.bios_in_flight > 0) text += ", " + std::to_string(s.bios_in_flight) + " bios unfinished";
  if (s.requests_unfinished > 0)
    text += ", " + plural(s.requests_unfinished, "request", "requests") + " unfinished";
  if (s.requests_elsewhere > 0)
    text += ", " + plural(s.requests_elsewhere, "system call", "system calls") +
            " on files or devices outside the stack (not followed)";
  return text + "\n";
}

std::string remap_lines(const Result& r) {
  const auto& c = r.remap_check;
  std::string text = "remap check: " + plural(c.checked, "remap", "remaps") +
                     " checked against the stack's geometry, " +
                     plural(c.mismatches, "mismatch", "mismatches") + "\n";
  for (const auto& example : c.examples) text += "  " + example + "\n";
  return text;
}

std::string waterfalls(const Result& r) {
  if (!r.levels.empty()) return level_waterfalls(r);
  const bool usdt = r.request_source == engine::RequestSource::usdt;
  std::string text = usdt_reads_only(r) ? "slowest reads:\n" : "slowest requests:\n";
  for (const auto& w : r.slowest) {
    text += "  " + w.call + " " + std::to_string(w.request_id) + (usdt ? " (thread " : " (tid ") +
            std::to_string(w.thread) + ", offset " + std::to_string(w.offset) + ", " +
            std::to_string(w.size) + " bytes, result " + std::to_string(w.result) +
            "): " + us(static_cast<double>(w.latency_ns) / 1000) + " us\n";
    text += stage_table(w, "    ");
  }
  return text;
}

}  // namespace

std::string verdict_status_sentence(const Result& result) {
  const bool usdt = result.request_source == engine::RequestSource::usdt;
  const uint64_t requests = result.requests.count + result.stream.requests_unfinished;
  switch (engine::verdict_status(result)) {
    case engine::VerdictStatus::ok:
      return "";
    case engine::VerdictStatus::no_io:
      return usdt ? "no I/O seen: no read through the program's USDT probes and no block I/O, so "
                    "nothing to attribute"
                  : "no I/O seen: no read, write or fsync system call on the stack and no block "
                    "I/O, so nothing to attribute (does the program read or write the stack's top "
                    "device, __DEV__ in -c, or a file on it?)";
    case engine::VerdictStatus::no_requests:
      return usdt ? "no read seen through the program's USDT probes (they did not fire; leave "
                    "--requests out, or give --requests syscall, to follow its system calls): "
                    "the members were compared on block I/O alone, and no read's time is "
                    "attributed"
                  : "no read, write or fsync system call on the stack's top device was seen (the "
                    "program's I/O went elsewhere, or through calls iotap does not follow: "
                    "io_uring, aio, mmap): the members were compared on block I/O alone, and no "
                    "request's time is attributed";
    case engine::VerdictStatus::no_block_io:
      return usdt ? (usdt_reads_only(result) ? plural(requests, "read", "reads")
                                             : plural(requests, "request", "requests")) +
                        " seen through the program's USDT probes, but no block I/O: none reached "
                        "a device (served from the page cache, or not from the stack's device?)"
                  : plural(requests, "system call", "system calls") +
                        " on the stack, but no block I/O: none reached a device (served from the "
                        "page cache, or writes buffered and not yet written back)";
  }
  return "";
}

std::string text(const Result& result, bool with_waterfalls, std::string_view why,
                 const KernelDiskStats& kernel_stats) {
  std::string out = requests_lines(result);
  out += unrequested_line(result);
  out += "\n" + layers_table(result);
  out += "\n" + devices_table(result, kernel_stats);
  out += service_table(result);
  out += "\n" + verdict_lines(result, why);
  out += loss_line(result);
  out += remap_lines(result);
  out += stream_line(result);
  if (with_waterfalls && !result.slowest.empty()) out += "\n" + waterfalls(result);
  return out;
}

}  // namespace iotap::report
