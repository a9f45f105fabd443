// libFuzzer target for the recording reader (launcher/recording/reader.cpp, what iotap replay,
// iotap compare and io_replayer read): any text is either refused with a FormatError naming the
// file, or a recording that iotap can use: its requests written again by the Writer read back the
// same, its attribution (compare::attribution_of) passes the attribution check and compares,
// and fio's iolog of it is made.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iotap/compare/compare.h"
#include "iotap/recording/fidelity.h"
#include "iotap/recording/recording.h"
#include "iotap/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace recording = iotap::recording;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  recording::Recording rec;
  try {
    rec = recording::parse(text, "fuzz.rec");
  } catch (const recording::FormatError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.rec: byte ")) std::abort();
    return 0;
  }
  if (!rec.header().is_object() || !rec.end().is_object()) std::abort();

  // Written again, it reads back request for request.
  std::string again;
  recording::Writer writer([&again](std::string_view bytes) { again += bytes; }, rec.header());
  for (const auto& request : rec.requests) writer.add(request);
  writer.finish(rec.end());
  const recording::Recording reread = recording::parse(again, "again.rec");
  if (reread.requests.size() != rec.requests.size()) std::abort();
  for (size_t i = 0; i < rec.requests.size(); ++i)
    if (recording::format_line(reread.requests[i]) != recording::format_line(rec.requests[i]))
      std::abort();

  const iotap::compare::Json attribution = iotap::compare::attribution_of(rec);
  try {
    iotap::compare::check_attribution(attribution, "fuzz.rec");
  } catch (const iotap::UserError&) {
    std::abort();  // what a recording stands for is always an attribution
  }
  const iotap::compare::Json comparison =
      iotap::compare::compare(attribution, "a.rec", attribution, "b.rec");
  if (iotap::compare::compare_text(comparison).empty()) std::abort();
  if (!recording::fio_iolog(rec, "/dev/md0").starts_with("fio version 3 iolog\n")) std::abort();
  (void)recording::fidelity(rec, {}, 1.0);
  return 0;
}
