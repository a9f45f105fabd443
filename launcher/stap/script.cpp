#include "iotap/stap/script.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "iotap/util/error.h"
#include "iotap/util/file_kind.h"

namespace iotap::stap {
namespace {

void reject_non_regular(const std::string& path, mode_t mode) {
  if (S_ISREG(mode)) return;
  if (S_ISDIR(mode)) throw UserError(path + " is a directory, not a script (name the .stp file)");
  throw UserError(path + " is " + std::string(non_regular_kind(mode)) +
                  ", not a script (name a .stp file on disk)");
}

[[noreturn]] void cannot_read(const std::string& path, int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      throw UserError("cannot read script '" + path + "': it does not exist (check the path)");
    case EACCES:
    case EPERM:
      throw UserError("cannot read script '" + path +
                      "': permission denied (check its permissions)");
    default:
      throw UserError("cannot read script '" + path + "': " + std::strerror(error));
  }
}

struct Marker {
  std::string_view name;
  std::optional<std::string> value;
  const char* supplied_by;  // the option that gives it a value
};

// Where in stap's lexical grammar (parse.cxx, lexer::scan) a character is.
enum class Context { kCode, kString, kLineComment, kBlockComment, kEmbeddedC };

}  // namespace

std::string string_literal_body(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string read_script(const std::string& script_path) {
  struct stat status {};
  if (::stat(script_path.c_str(), &status) != 0) cannot_read(script_path, errno);
  reject_non_regular(script_path, status.st_mode);
  // O_NONBLOCK: should the path have become a FIFO since the stat, open must not wait; the
  // fstat then rejects it.
  const int fd = ::open(script_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) cannot_read(script_path, errno);
  std::string text;
  try {
    if (::fstat(fd, &status) != 0) cannot_read(script_path, errno);
    reject_non_regular(script_path, status.st_mode);
    std::array<char, 65536> buffer{};
    for (;;) {
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) cannot_read(script_path, errno);
      if (n == 0) break;
      text.append(buffer.data(), static_cast<size_t>(n));
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UserError(script_path + " is empty: there is no script to compile");
  return text;
}

std::string substitute_markers(std::string_view text, const Markers& markers,
                               const std::string& script_name) {
  const std::array<Marker, 2> all{{
      {"__EXE__", markers.exe, "-c CMD or -x PID"},
      {"__PID__", markers.pid ? std::optional(std::to_string(*markers.pid)) : std::nullopt,
       "-x PID"},
  }};
  std::string out;
  out.reserve(text.size());
  Context context = Context::kCode;
  size_t line = 1;
  const auto at = [&](size_t i, std::string_view what) { return text.substr(i).starts_with(what); };

  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (context == Context::kCode || context == Context::kString ||
        context == Context::kEmbeddedC) {
      const Marker* found = nullptr;
      for (const Marker& marker : all) {
        if (at(i, marker.name)) found = &marker;
      }
      if (found != nullptr) {
        if (!found->value)
          throw UserError(script_name + " uses " + std::string(found->name) + ", which needs " +
                          found->supplied_by + " (line " + std::to_string(line) + ")");
        out += context == Context::kString ? string_literal_body(*found->value) : *found->value;
        i += found->name.size();
        continue;
      }
    }
    size_t take = 1;  // characters copied unchanged
    switch (context) {
      case Context::kCode:
        if (c == '"') {
          context = Context::kString;
        } else if ((c == '$' || c == '@') && at(i + 1, "#")) {
          take = 2;  // $# and @#: the number of script arguments, not a comment
        } else if (c == '#' || at(i, "//")) {
          context = Context::kLineComment;
        } else if (at(i, "/*")) {
          context = Context::kBlockComment;
          take = 2;
        } else if (at(i, "%{")) {
          context = Context::kEmbeddedC;
          take = 2;
        }
        break;
      case Context::kString:
        if (c == '\\') {
          take = 2;  // an escape, or (backslash-newline) the string going on on the next line
        } else if (c == '"' || c == '\n') {
          context = Context::kCode;  // stap ends an unterminated string at the newline too
        }
        break;
      case Context::kLineComment:
        if (c == '\n') context = Context::kCode;
        break;
      case Context::kBlockComment:
        if (at(i, "*/")) {
          context = Context::kCode;
          take = 2;
        }
        break;
      case Context::kEmbeddedC:
        if (at(i, "%}")) {
          context = Context::kCode;
          take = 2;
        }
        break;
    }
    for (size_t k = 0; k < take && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') ++line;
      out += text[i];
    }
  }
  return out;
}

bool is_bundled_example(const std::string& script_path, const std::string& examples_dir) {
  std::error_code error;
  const std::filesystem::path script = std::filesystem::canonical(script_path, error);
  if (error) return false;
  const std::filesystem::path examples = std::filesystem::canonical(examples_dir, error);
  return !error && script.parent_path() == examples;
}

std::string prepare_script(const std::string& script_path, const Markers& markers) {
  return substitute_markers(read_script(script_path), markers, script_path);
}

}  // namespace iotap::stap
