#pragma once
// For a person reading a run's output (`iotap run`): the binary records of the event stream
// (docs/event-format.md, version 2) shown as the text lines they stand for, everything else
// passed on as it came, as soon as it comes.
#include <functional>
#include <memory>
#include <string_view>

namespace iotap::engine {

class RecordsAsText {
 public:
  explicit RecordsAsText(std::function<void(std::string_view)> out);
  ~RecordsAsText();
  RecordsAsText(const RecordsAsText&) = delete;
  RecordsAsText& operator=(const RecordsAsText&) = delete;

  void feed(std::string_view bytes);  // cut anywhere
  // The stream ended: a record cut short goes on as the bytes it was.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace iotap::engine
