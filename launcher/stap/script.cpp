#include "stap/script.h"

#include "util/error.h"
#include "util/files.h"

namespace iotap::stap {
namespace {

// Replaces every `marker` in `text`; says which option supplies it when there is no value.
void substitute(std::string& text, const std::string& marker,
                const std::optional<std::string>& value, const std::string& script,
                const char* how) {
  size_t at = text.find(marker);
  if (at == std::string::npos) return;
  if (!value) throw UserError(script + " uses " + marker + ", which needs " + how);
  while (at != std::string::npos) {
    text.replace(at, marker.size(), *value);
    at = text.find(marker, at + value->size());
  }
}

}  // namespace

std::string prepare_script(const std::string& script_path, const Markers& markers) {
  std::string text = read_file(script_path);
  // Written inside quotes by the script's author, as in process("__EXE__").mark("read_done").
  substitute(text, "__EXE__", markers.exe, script_path, "-c CMD or -x PID");
  substitute(text, "__PID__",
             markers.pid ? std::optional<std::string>(std::to_string(*markers.pid)) : std::nullopt,
             script_path, "-x PID");
  return text;
}

}  // namespace iotap::stap
