#include "verbs/report_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/error.h"

namespace iotap::verbs {

namespace {

[[noreturn]] void cannot_write(const std::string& path, const std::string& why) {
  throw UserError("cannot write -o '" + path + "': " + why +
                  " (name a file in a directory you can write to)");
}

// What stops PATH from being written, without creating or truncating it; empty when nothing does.
std::string write_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) return "it is a directory";
  if (fs::exists(status)) return ::access(path.c_str(), W_OK) == 0 ? "" : std::strerror(errno);
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec)) return "no directory '" + parent.string() + "'";
  return ::access(parent.c_str(), W_OK | X_OK) == 0 ? "" : std::strerror(errno);
}

}  // namespace

ReportOutput::ReportOutput(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  if (const std::string problem = write_problem(path_); !problem.empty())
    cannot_write(path_, problem);
}

void ReportOutput::write(std::string_view text) {
  if (path_.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  if (!file_) {
    file_.reset(std::fopen(path_.c_str(), "wb"));
    if (!file_) cannot_write(path_, std::strerror(errno));
  }
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size() ||
      std::fflush(file_.get()) != 0)
    cannot_write(path_, std::strerror(errno));
}

bool ReportOutput::is_terminal() const {
  return path_.empty() && ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace iotap::verbs
