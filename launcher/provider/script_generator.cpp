#include "iotap/provider/script_generator.h"

#include <filesystem>

#include "iotap/stap/script.h"

namespace iotap::provider {

namespace {

std::string header(const Provider& provider, const std::string& program) {
  const std::string file = std::filesystem::path(provider.path).filename().string();
  std::string out =
      "#!/usr/bin/env stap\n"
      "// " +
      provider.name + ".stp - written by iotap from " + file + " (docs/providers.md)\n// probes " +
      program + "\n";
  if (!provider.about.empty()) out += "// " + provider.about + "\n";
  out +=
      "//\n"
      "// PB TS CPU SEQ TID LEVEL KEY OP FILE OFFSET SIZE: a request begins; PT ... LEVEL KEY\n"
      "// TEXT: its text; PE ... LEVEL KEY RESULT: it ends (docs/event-format.md).\n// LEVEL:";
  for (size_t i = 0; i < provider.levels.size(); ++i)
    out += " " + std::to_string(i) + " " + provider.levels[i].name;
  out +=
      ".\n// A thread's I/O system calls are followed while it has a request open (SS/SD), and "
      "the\n"
      "// block layer's events printed (Q, X, M, C, I, D).\n\n"
      "probe begin { println(\"iotap-events 2\") }\n\n";
  return out;
}

// What a text argument says, newlines and tabs as spaces, at most 200 bytes: two reads of 100,
// each within stap's default MAXSTRINGLEN (128).
const char* const kTextFunction =
    "function __iotap_request_text:string (address:long)\n"
    "{\n"
    "\ttext = user_string_n(address, 100, \"\")\n"
    "\tif (strlen(text) == 100) text .= user_string_n(address + 100, 100, \"\")\n"
    "\treturn str_replace(str_replace(str_replace(text, \"\\n\", \" \"), \"\\t\", \" \"), "
    "\"\\r\", \" \")\n"
    "}\n\n";

// A printf's format and its arguments, built field by field: a constant goes into the format
// as it is, anything else as %d with its stap code.
struct Line {
  std::string format;
  std::string arguments = "@iotap_event_head";

  void word(const std::string& text) { format += " " + text; }
  void number(const Expression& value) {
    const auto& terms = value.terms();
    if (terms.size() == 1 && terms[0].size() == 1 && value.highest_argument() == 0) {
      word(value.to_text());
      return;
    }
    word("%d");
    arguments += ", " + value.to_stap();
  }
  [[nodiscard]] std::string printf() const {
    return "\tprintf(\"" + format + "\\n\", " + arguments + ")\n";
  }
};

Line line_head(const char* kind, const Level& level, size_t index) {
  Line line{std::string(kind) + " %d %d %d %d " + std::to_string(index)};
  line.number(level.pair_key ? *level.pair_key : Expression::zero());
  return line;
}

std::string begin_probe(const Level& level, size_t index, const std::string& point) {
  std::string out = "probe " + point + "(\"" + level.begin.name + "\")\n{\n";
  if (level.pair_key)
    out += "\t__iotap_begin_tid[" + std::to_string(index) + ", " + level.pair_key->to_stap() +
           "] = tid()\n";
  out += "\tsyscall_io_follow_thread(tid())\n";
  Line begin = line_head("PB", level, index);
  begin.word(std::string(1, level.op));
  for (const Expression* value : {&level.file, &level.offset, &level.size}) begin.number(*value);
  out += begin.printf();
  if (level.text_arg) {
    Line text = line_head("PT", level, index);
    text.word("%s");
    text.arguments += ", __iotap_request_text($arg" + std::to_string(*level.text_arg) + ")";
    out += text.printf();
  }
  return out + "}\n\n";
}

std::string end_probe(const Level& level, size_t index, const std::string& point) {
  std::string out = "probe " + point + "(\"" + level.end.name + "\")\n{\n";
  Line end = line_head("PE", level, index);
  end.number(level.result);
  out += end.printf();
  if (level.pair_key) {
    // Paired by an argument, the end may come on another thread than its begin.
    const std::string at = "[" + std::to_string(index) + ", " + level.pair_key->to_stap() + "]";
    out += "\tif (" + at + " in __iotap_begin_tid) {\n";
    out += "\t\tsyscall_io_unfollow_thread(__iotap_begin_tid" + at + ")\n";
    out += "\t\tdelete __iotap_begin_tid" + at + "\n\t}\n";
  } else {
    out += "\tsyscall_io_unfollow_thread(tid())\n";
  }
  return out + "}\n\n";
}

const char* const kSystemCallsAndBlocks =
    "probe syscall_io.start\n"
    "{\n"
    "\tprintf(\"SS %d %d %d %d %s %d %d %d %d %d\\n\", @iotap_event_head, name, dev, ino, offset,\n"
    "\t       size, direct)\n"
    "}\n\n"
    "probe syscall_io.done\n"
    "{\n"
    "\tprintf(\"SD %d %d %d %d %d\\n\", @iotap_event_head, result)\n"
    "}\n\n"
    "probe iotap_events.block {}\n";

}  // namespace

std::string generated_script(const Provider& provider, const std::string& program) {
  std::string out = header(provider, program);
  bool any_text = false;
  bool any_key = false;
  for (const auto& level : provider.levels) {
    any_text = any_text || level.text_arg.has_value();
    any_key = any_key || level.pair_key.has_value();
  }
  if (any_text) out += kTextFunction;
  // A request paired by an argument: the thread it began on, to stop following its calls.
  if (any_key) out += "global __iotap_begin_tid[16384]\n\n";
  const std::string point = "process(\"" + stap::string_literal_body(program) + "\").mark";
  for (size_t i = 0; i < provider.levels.size(); ++i) {
    out += begin_probe(provider.levels[i], i, point);
    out += end_probe(provider.levels[i], i, point);
  }
  return out + kSystemCallsAndBlocks;
}

}  // namespace iotap::provider
