// The provider file reader: one declaration per line, `#` lines and empty lines left out
// (docs/providers.md has the format). Each line is checked as it is read, each level when the
// next begins or the file ends; the first problem is the message.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <sstream>

#include "iotap/provider/provider.h"
#include "iotap/util/error.h"
#include "iotap/util/files.h"

namespace iotap::provider {

namespace {

bool is_name(std::string_view word) {
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0])) != 0) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// An expression and the line it came from, checked against its probe once the level is whole.
struct PendingExpression {
  const Expression* expression = nullptr;
  std::string what;  // "offset"
  int line = 0;
  bool of_end = false;   // reads the end probe's arguments (result)
  bool of_both = false;  // reads both (pair)
};

class Reader {
 public:
  explicit Reader(std::string path) { provider_.path = std::move(path); }

  Provider read(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      ++line_;
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      take(line.substr(first, line.find_last_not_of(" \t\r") - first + 1));
    }
    line_ = 0;
    close_level();
    if (provider_.name.empty()) fail("has no 'provider NAME' line");
    if (provider_.levels.empty())
      fail("declares no level ('level NAME PLURAL' with its begin, end and pair lines)");
    // A script of iotap's own prints its events itself; a generated one needs each level's op.
    if (provider_.script.empty() && !levels_without_op_.empty()) {
      line_ = levels_without_op_.front().second;
      fail("level " + levels_without_op_.front().first +
           " has no 'op' line (R, W, F or - for a request that is not I/O itself)");
    }
    return std::move(provider_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const std::string where = provider_.path + (line_ > 0 ? ":" + std::to_string(line_) : "");
    throw UserError("provider file " + where + ": " + what);
  }

  void expect_words(const std::vector<std::string>& words, size_t count, const char* shape) {
    if (words.size() != count)
      fail("expected '" + std::string(shape) + "', found " + std::to_string(words.size() - 1) +
           " word" + (words.size() == 2 ? "" : "s") + " after '" + words[0] + "'");
  }

  void take(const std::string& line) {
    const auto words = words_of(line);
    const std::string& key = words[0];
    if (provider_.name.empty() && key != "provider")
      fail("expected 'provider NAME' first, found '" + key + "'");
    if (key == "provider") return take_provider(words);
    if (key == "about") return take_about(words, line);
    if (key == "program") return take_program(words);
    if (key == "script") return take_script(words);
    if (key == "level") return take_level(words);
    if (!level_)
      fail("unknown word '" + key +
           "' (expected provider, about, program, script or level; begin, end, pair, op, file, "
           "offset, size, result and text belong inside a level)");
    take_in_level(words, line);
  }

  void take_provider(const std::vector<std::string>& words) {
    expect_words(words, 2, "provider NAME");
    if (!provider_.name.empty()) fail("a second 'provider' line (one provider per file)");
    if (!is_name(words[1]))
      fail("the provider's name is its probes' USDT provider, letters, digits and _, not '" +
           words[1] + "'");
    provider_.name = words[1];
  }

  void take_about(const std::vector<std::string>& words, const std::string& line) {
    if (words.size() < 2) fail("expected 'about TEXT' (one line saying what the requests are)");
    provider_.about = line.substr(line.find_first_not_of(" \t", words[0].size()));
  }

  void take_program(const std::vector<std::string>& words) {
    expect_words(words, 2, "program /ABSOLUTE/PATH");
    const std::string& path = words[1];
    const bool plain = std::all_of(path.begin(), path.end(), [](char c) {
      return std::isprint(static_cast<unsigned char>(c)) != 0 && c != '"' && c != '\\';
    });
    if (path[0] != '/' || !plain)
      fail("expected an absolute path without quotes or backslashes after 'program', found '" +
           path + "'");
    provider_.programs.push_back(path);
  }

  void take_script(const std::vector<std::string>& words) {
    expect_words(words, 2, "script NAME.stp");
    const std::string& name = words[1];
    const bool plain = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
    if (!plain || name.size() < 5 || !name.ends_with(".stp"))
      fail("expected a script of iotap's examples/ (NAME.stp) after 'script', found '" + name +
           "'");
    provider_.script = name;
  }

  void take_level(const std::vector<std::string>& words) {
    expect_words(words, 3, "level NAME PLURAL");
    close_level();
    for (const auto& name : {words[1], words[2]})
      if (!is_name(name))
        fail("a level's name and plural are letters, digits and _, not '" + name + "'");
    for (const auto& level : provider_.levels)
      if (level.name == words[1]) fail("a second level named '" + words[1] + "'");
    level_ = Level{};
    level_->name = words[1];
    level_->plural = words[2];
    level_line_ = line_;
    pending_.clear();
    seen_.clear();
  }

  ProbeUse probe_use(const std::vector<std::string>& words) {
    expect_words(words, 3, (words[0] + " PROBE ARGUMENTS").c_str());
    if (!is_name(words[1]))
      fail("a probe's name is letters, digits and _ (query__start), not '" + words[1] + "'");
    int count = -1;
    const auto& digits = words[2];
    const auto [end, problem] =
        std::from_chars(digits.data(), digits.data() + digits.size(), count);
    if (problem != std::errc() || end != digits.data() + digits.size() || count < 0 || count > 12)
      fail("expected the number of arguments " + words[1] + " takes (0 to 12), found '" + digits +
           "'");
    return {words[1], count, line_};
  }

  const Expression& expression(const std::string& text, Expression& into, const std::string& what) {
    auto parsed = parse_expression(text);
    if (!parsed.expression) fail(what + ": " + parsed.error);
    into = std::move(*parsed.expression);
    return into;
  }

  void take_in_level(const std::vector<std::string>& words, const std::string& line) {
    const std::string& key = words[0];
    if (!seen_.insert(key).second) fail("a second '" + key + "' line in level " + level_->name);
    const std::string rest =
        words.size() > 1 ? line.substr(line.find_first_not_of(" \t", key.size())) : "";
    if (key == "begin") {
      level_->begin = probe_use(words);
    } else if (key == "end") {
      level_->end = probe_use(words);
    } else if (key == "pair") {
      take_pair(words, rest);
    } else if (key == "op") {
      expect_words(words, 2, "op R|W|F|-");
      if (words[1].size() != 1 || std::string_view("RWF-").find(words[1][0]) == std::string::npos)
        fail("expected op R (read), W (write), F (flush) or - (not I/O itself), found '" +
             words[1] + "'");
      level_->op = words[1][0];
    } else if (key == "file" || key == "offset" || key == "size" || key == "result") {
      if (words.size() < 2) fail("expected an expression after '" + key + "' ($arg2 * 8192)");
      Expression& into = key == "file"     ? level_->file
                         : key == "offset" ? level_->offset
                         : key == "size"   ? level_->size
                                           : level_->result;
      pending_.push_back({&expression(rest, into, key), key, line_, key == "result", false});
    } else if (key == "text") {
      take_text(words);
    } else {
      fail("unknown word '" + key + "' in level " + level_->name +
           " (expected begin, end, pair, op, file, offset, size, result or text)");
    }
  }

  void take_pair(const std::vector<std::string>& words, const std::string& rest) {
    if (words.size() == 2 && words[1] == "thread") return;
    if (words.size() < 2) fail("expected 'pair thread' or 'pair EXPRESSION' ($arg1)");
    auto parsed = parse_expression(rest);
    if (!parsed.expression) fail("expected 'pair thread' or 'pair EXPRESSION': " + parsed.error);
    level_->pair_key = std::move(*parsed.expression);
    pending_.push_back({&*level_->pair_key, "pair", line_, false, true});
  }

  void take_text(const std::vector<std::string>& words) {
    expect_words(words, 2, "text $argN");
    auto parsed = parse_expression(words[1]);
    const bool one_argument = parsed.expression && parsed.expression->terms().size() == 1 &&
                              parsed.expression->terms()[0].size() == 1 &&
                              parsed.expression->highest_argument() > 0;
    if (!one_argument)
      fail("expected the one argument holding the text ($arg1), found '" + words[1] + "'");
    level_->text_arg = parsed.expression->highest_argument();
    text_expression_ = *parsed.expression;
    pending_.push_back({&text_expression_, "text", line_, false, false});
  }

  void check_arguments(const PendingExpression& pending) {
    const int highest = pending.expression->highest_argument();
    const auto check = [&](const ProbeUse& probe) {
      if (highest > probe.args) {
        line_ = pending.line;
        fail(pending.what + " reads $arg" + std::to_string(highest) + " but " + probe.name +
             " is declared with " + std::to_string(probe.args) + " argument" +
             (probe.args == 1 ? "" : "s"));
      }
    };
    if (pending.of_end || pending.of_both) check(level_->end);
    if (!pending.of_end || pending.of_both) check(level_->begin);
  }

  void close_level() {
    if (!level_) return;
    const int saved = line_;
    line_ = level_line_;
    for (const char* needed : {"begin", "end", "pair"})
      if (!seen_.contains(needed)) fail("level " + level_->name + " has no '" + needed + "' line");
    if (!seen_.contains("op")) levels_without_op_.emplace_back(level_->name, level_line_);
    line_ = saved;
    for (const auto& pending : pending_) check_arguments(pending);
    provider_.levels.push_back(std::move(*level_));
    level_.reset();
  }

  Provider provider_;
  int line_ = 0;
  std::optional<Level> level_;
  int level_line_ = 0;
  std::vector<PendingExpression> pending_;
  std::set<std::string> seen_;
  Expression text_expression_ = Expression::zero();
  std::vector<std::pair<std::string, int>> levels_without_op_;  // name, line
};

}  // namespace

std::vector<LevelName> level_names(const Provider& provider) {
  std::vector<LevelName> names;
  for (const auto& level : provider.levels) names.push_back({level.name, level.plural});
  return names;
}

Provider parse_provider(const std::string& text, const std::string& path) {
  return Reader(path).read(text);
}

Provider read_provider(const std::string& path) {
  // A FIFO, a directory or a huge file is refused in one line before it is read.
  constexpr uint64_t kMostBytes = 1 << 20;
  return parse_provider(read_input_file(path, "a provider file", kMostBytes), path);
}

}  // namespace iotap::provider
