// A small strict JSON reader for the tests: enough to check that block_hasher --json prints
// valid JSON and to look its values up. Throws std::runtime_error on anything malformed, so
// a test that parses the output also checks the escaping and the shape.
#pragma once

#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mini_json {

struct Value {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string text;  // a string's value, or a number's literal text
  std::vector<Value> items;
  std::map<std::string, Value> members;

  const Value& at(const std::string& key) const {
    if (type != Type::kObject) throw std::runtime_error("not an object, looking up " + key);
    const auto it = members.find(key);
    if (it == members.end()) throw std::runtime_error("no key " + key);
    return it->second;
  }
  const Value& at(std::size_t index) const {
    if (type != Type::kArray || index >= items.size()) throw std::runtime_error("bad index");
    return items[index];
  }
  // An integer written without fraction or exponent, as block_hasher writes counts.
  unsigned long long integer() const {
    if (type != Type::kNumber || text.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error("not a non-negative integer: " + text);
    }
    return std::strtoull(text.c_str(), nullptr, 10);
  }
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Value parse_document() {
    Value value = parse_value();
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value parse_value() {
    skip_space();
    Value value;
    const char c = peek();
    if (c == '{') {
      value.type = Value::Type::kObject;
      ++pos_;
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return value;
      }
      while (true) {
        skip_space();
        std::string key = parse_string();
        skip_space();
        expect(':');
        if (!value.members.emplace(key, parse_value()).second) fail("duplicate key " + key);
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.type = Value::Type::kArray;
      ++pos_;
      skip_space();
      if (peek() == ']') {
        ++pos_;
        return value;
      }
      while (true) {
        value.items.push_back(parse_value());
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.type = Value::Type::kString;
      value.text = parse_string();
      return value;
    }
    if (consume("true")) {
      value.type = Value::Type::kBool;
      value.boolean = true;
      return value;
    }
    if (consume("false")) {
      value.type = Value::Type::kBool;
      return value;
    }
    if (consume("null")) return value;
    return parse_number();
  }

  Value parse_number() {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("bad fraction");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("bad exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    Value value;
    value.type = Value::Type::kNumber;
    value.text = std::string(text_.substr(start, pos_ - start));
    value.number = std::strtod(value.text.c_str(), nullptr);
    return value;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) fail("short \\u escape");
          const std::string hex(text_.substr(pos_, 4));
          if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
            fail("bad \\u escape");
          }
          pos_ += 4;
          const unsigned long code = std::strtoul(hex.c_str(), nullptr, 16);
          // The tests only need the ASCII range (block_hasher escapes control characters).
          if (code >= 0x80) fail("\\u escape beyond ASCII is not supported by this reader");
          out += static_cast<char>(code);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

inline Value parse(std::string_view text) {
  return Parser(text).parse_document();
}

}  // namespace mini_json
