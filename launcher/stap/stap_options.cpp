// The stap options iotap run passes through: checks, and the words each program gets.
#include "iotap/stap/stap_options.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "iotap/util/error.h"

namespace iotap::stap {

namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// stap's ^[a-z_][a-z0-9_]*, case-insensitive.
bool is_name(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) == 0 &&
         std::ranges::all_of(text, is_word_char);
}

}  // namespace

std::string check_define(std::string_view text) {
  const size_t equals = text.find('=');
  const std::string_view name = text.substr(0, equals);
  // stap's pattern for -D: ^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?$
  std::string_view value = equals == std::string_view::npos ? "x" : text.substr(equals + 1);
  if (value.starts_with('-')) value.remove_prefix(1);
  if (!is_name(name) || value.empty() || !std::ranges::all_of(value, is_word_char)) {
    throw UserError(
        "-D takes NAME or NAME=VALUE (letters, digits and _, VALUE maybe negative), "
        "as stap does, e.g. -D MAXACTION=10000; got '" +
        std::string(text) + "'");
  }
  return std::string(text);
}

bool is_stap_keyword(std::string_view word) {
  static constexpr std::array<std::string_view, 20> kKeywords{
      "probe", "global", "function", "if",     "else",  "for",    "foreach",
      "in",    "limit",  "return",   "delete", "while", "break",  "continue",
      "next",  "string", "long",     "try",    "catch", "private"};
  return std::ranges::find(kKeywords, word) != kKeywords.end();
}

std::string check_global(std::string_view text) {
  const size_t equals = text.find('=');
  const std::string_view name = text.substr(0, equals);
  const std::string_view value =
      equals == std::string_view::npos ? std::string_view() : text.substr(equals + 1);
  // stap's pattern for -G: ^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$
  const auto value_char = [](char c) { return is_word_char(c) || c == '.' || c == '-'; };
  if (!is_name(name) || value.empty() || !std::ranges::all_of(value, value_char)) {
    throw UserError(
        "-G takes NAME=VALUE, a global of the script and its value (letters, digits and _.-), "
        "as stap does, e.g. -G interval=5; got '" +
        std::string(text) + "'");
  }
  // stap takes -G limit=3 and passes it to the module, which has no such parameter: no script
  // can declare a global named as a keyword.
  if (is_stap_keyword(name)) {
    throw UserError("-G " + std::string(text) + ": '" + std::string(name) +
                    "' is a SystemTap keyword, which no script can have as a global: name "
                    "another of the script's globals, e.g. -G interval=5");
  }
  return std::string(text);
}

std::string check_unwind_module(std::string_view text) {
  std::string word(text);
  if (word.find('/') != std::string::npos) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(word, error)) {
      throw UserError(
          "-d " + word + ": " +
          (std::filesystem::exists(word, error) ? "not a regular file" : "no such file") +
          " (-d takes a kernel module's name, e.g. -d raid0, or a file's path)");
    }
    return word;
  }
  const auto module_char = [](char c) { return is_word_char(c) || c == '-'; };
  if (word.empty() || !std::ranges::all_of(word, module_char)) {
    throw UserError(
        "-d takes a kernel module's name (letters, digits, _ and -), e.g. -d raid0, or the path "
        "of a module or program, as stap does; got '" +
        word + "'");
  }
  return word;
}

void check_stap_options(const StapOptions& options) {
  if (options.suppress_time_limits && !options.guru) {
    throw UserError(
        "--suppress-time-limits lifts the limits that keep a probe from stalling the kernel, "
        "which stap allows in guru mode only: add -g");
  }
}

std::vector<std::string> compile_words(const StapOptions& options) {
  std::vector<std::string> words;
  for (const auto& define : options.defines) words.insert(words.end(), {"-D", define});
  if (options.guru) words.emplace_back("-g");
  if (options.suppress_time_limits) words.emplace_back("--suppress-time-limits");
  for (const auto& module : options.unwind_modules) words.insert(words.end(), {"-d", module});
  if (options.all_modules) words.emplace_back("--all-modules");
  if (options.exit_after_seconds != 0)
    words.insert(words.end(), {"-T", std::to_string(options.exit_after_seconds)});
  if (options.probe_timing) words.emplace_back("-t");
  words.insert(words.end(), options.verbosity, "-v");
  return words;
}

std::vector<std::string> staprun_words(const StapOptions& options) {
  std::vector<std::string> words(options.verbosity, "-v");
  return words;
}

std::vector<std::string> module_words(const StapOptions& options) {
  return options.globals;
}

}  // namespace iotap::stap
