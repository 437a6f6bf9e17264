// A minimal strict JSON reader and writer: what the safetensors header needs, and correct.
//
// Reads RFC 8259 JSON with these restrictions, each refused with a ValueError that names the
// byte offset: numbers must be integers that fit int64 (negative) or uint64 (non-negative) (no
// fraction or exponent; safetensors headers have none); object keys must be unique; nesting is
// limited (kMaxDepth); the input must be valid UTF-8 (no overlong forms, no surrogates encoded
// directly) and nothing but whitespace may follow the value. Strings decode every escape,
// \uXXXX included, with surrogate pairs joined and lone surrogates refused.
//
// Writes compact JSON as serde_json does (no spaces; `"`, `\` and control characters escaped,
// \b \f \n \r \t by their short forms, others as \u00xx; everything else, non-ASCII included,
// written as is), so that a header written here is byte-identical to the reference writer's.
//
// Objects keep their members in document order (a vector, looked up linearly or through find()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tensorplay/core/error.hpp>

namespace tensorplay::detail::json {

inline constexpr int kMaxDepth = 64;

// Thread safety: a plain value type.
class Value {
 public:
  enum class Kind { Null, Bool, Int, String, Array, Object };
  using Array = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() = default;
  static Value null() { return Value(); }
  static Value boolean(bool b) {
    Value v;
    v.kind_ = Kind::Bool;
    v.bool_ = b;
    return v;
  }
  static Value integer(int64_t i) {
    Value v;
    v.kind_ = Kind::Int;
    v.negative_ = i < 0;
    v.magnitude_ = i < 0 ? uint64_t(0) - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    return v;
  }
  static Value unsigned_integer(uint64_t u) {
    Value v;
    v.kind_ = Kind::Int;
    v.magnitude_ = u;
    return v;
  }
  static Value string(std::string s) {
    Value v;
    v.kind_ = Kind::String;
    v.string_ = std::move(s);
    return v;
  }
  static Value array(Array a = {}) {
    Value v;
    v.kind_ = Kind::Array;
    v.array_ = std::move(a);
    return v;
  }
  static Value object(Object o = {}) {
    Value v;
    v.kind_ = Kind::Object;
    v.object_ = std::move(o);
    return v;
  }

  Kind kind() const noexcept { return kind_; }
  bool is_null() const noexcept { return kind_ == Kind::Null; }
  bool is_bool() const noexcept { return kind_ == Kind::Bool; }
  bool is_int() const noexcept { return kind_ == Kind::Int; }
  bool is_string() const noexcept { return kind_ == Kind::String; }
  bool is_array() const noexcept { return kind_ == Kind::Array; }
  bool is_object() const noexcept { return kind_ == Kind::Object; }
  // An integer that is negative (it then fits int64).
  bool is_negative() const noexcept { return kind_ == Kind::Int && negative_; }

  bool as_bool() const {
    expect(Kind::Bool);
    return bool_;
  }
  // The integer as uint64; refused when negative.
  uint64_t as_uint64() const {
    expect(Kind::Int);
    TP_CHECK_VALUE(!negative_, "JSON: expected a non-negative integer, got -", magnitude_);
    return magnitude_;
  }
  // The integer as int64; refused when it does not fit.
  int64_t as_int64() const {
    expect(Kind::Int);
    if (negative_) return static_cast<int64_t>(uint64_t(0) - magnitude_);
    TP_CHECK_VALUE(magnitude_ <= uint64_t(std::numeric_limits<int64_t>::max()), "JSON: integer ",
                   magnitude_, " does not fit in int64");
    return static_cast<int64_t>(magnitude_);
  }
  const std::string& as_string() const {
    expect(Kind::String);
    return string_;
  }
  const Array& as_array() const {
    expect(Kind::Array);
    return array_;
  }
  Array& as_array() {
    expect(Kind::Array);
    return array_;
  }
  const Object& as_object() const {
    expect(Kind::Object);
    return object_;
  }
  Object& as_object() {
    expect(Kind::Object);
    return object_;
  }
  // The member named `key`, or null when absent.
  const Value* find(std::string_view key) const {
    for (const auto& [k, v] : as_object()) {
      if (k == key) return &v;
    }
    return nullptr;
  }

  static const char* kind_name(Kind k) noexcept {
    switch (k) {
      case Kind::Null: return "null";
      case Kind::Bool: return "a boolean";
      case Kind::Int: return "an integer";
      case Kind::String: return "a string";
      case Kind::Array: return "an array";
      case Kind::Object: return "an object";
    }
    return "?";
  }

 private:
  void expect(Kind k) const {
    TP_CHECK_TYPE(kind_ == k, "JSON: expected ", kind_name(k), ", got ", kind_name(kind_));
  }

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool negative_ = false;
  uint64_t magnitude_ = 0;
  std::string string_;
  Array array_;
  Object object_;
};

namespace parse_impl {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Value parse_document() {
    skip_ws();
    Value v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("trailing characters after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw ValueError(str_cat("invalid JSON at byte ", static_cast<long long>(pos_), ": ", what));
  }
  bool at_end() const noexcept { return pos_ >= s_.size(); }
  unsigned char peek() const noexcept { return static_cast<unsigned char>(s_[pos_]); }

  void skip_ws() noexcept {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
      ++pos_;
    }
  }
  void expect_literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) != lit) fail("unexpected character");
    pos_ += lit.size();
  }

  Value parse_value(int depth) {
    if (at_end()) fail("unexpected end of input");
    switch (peek()) {
      case '{': return parse_object(depth + 1);
      case '[': return parse_array(depth + 1);
      case '"': return Value::string(parse_string());
      case 't': expect_literal("true"); return Value::boolean(true);
      case 'f': expect_literal("false"); return Value::boolean(false);
      case 'n': expect_literal("null"); return Value::null();
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return parse_number();
        fail("unexpected character");
    }
  }

  Value parse_object(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    ++pos_;  // '{'
    Value::Object members;
    std::map<std::string, bool, std::less<>> seen;
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return Value::object(std::move(members));
    }
    for (;;) {
      skip_ws();
      if (at_end() || peek() != '"') fail("expected a string key");
      const std::size_t key_pos = pos_;
      std::string key = parse_string();
      if (!seen.emplace(key, true).second) {
        pos_ = key_pos;
        throw ValueError(str_cat("invalid JSON at byte ", static_cast<long long>(key_pos),
                                 ": duplicate key \"", key, "\""));
      }
      skip_ws();
      if (at_end() || peek() != ':') fail("expected ':'");
      ++pos_;
      skip_ws();
      Value v = parse_value(depth);
      members.emplace_back(std::move(key), std::move(v));
      skip_ws();
      if (at_end()) fail("unexpected end of input in an object");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return Value::object(std::move(members));
      }
      fail("expected ',' or '}'");
    }
  }

  Value parse_array(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    ++pos_;  // '['
    Value::Array items;
    skip_ws();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return Value::array(std::move(items));
    }
    for (;;) {
      skip_ws();
      items.push_back(parse_value(depth));
      skip_ws();
      if (at_end()) fail("unexpected end of input in an array");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return Value::array(std::move(items));
      }
      fail("expected ',' or ']'");
    }
  }

  Value parse_number() {
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (at_end() || peek() < '0' || peek() > '9') fail("expected a digit");
    if (peek() == '0' && pos_ + 1 < s_.size() && s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '9') {
      fail("leading zeros are not allowed");
    }
    uint64_t n = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      if (__builtin_mul_overflow(n, uint64_t(10), &n) ||
          __builtin_add_overflow(n, uint64_t(peek() - '0'), &n)) {
        fail("integer out of range");
      }
      ++pos_;
    }
    if (!at_end() && (peek() == '.' || peek() == 'e' || peek() == 'E')) {
      fail("only integers are supported (no fraction or exponent)");
    }
    if (negative) {
      if (n > uint64_t(std::numeric_limits<int64_t>::max()) + 1) fail("integer out of range");
      return Value::integer(n == 0 ? 0 : static_cast<int64_t>(uint64_t(0) - n));
    }
    return Value::unsigned_integer(n);
  }

  unsigned hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const unsigned char c = peek();
      unsigned d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        fail("invalid hex digit in \\u escape");
      }
      v = v * 16 + d;
      ++pos_;
    }
    return v;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // One UTF-8 sequence, validated (RFC 3629: shortest form, no surrogates, at most U+10FFFF).
  void copy_utf8(std::string& out) {
    const unsigned char c = peek();
    int len;
    uint32_t cp;
    if (c < 0x80) {
      len = 1;
      cp = c;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      fail("invalid UTF-8");
    }
    if (s_.size() - pos_ < std::size_t(len)) fail("truncated UTF-8 sequence");
    for (int i = 1; i < len; ++i) {
      const unsigned char cc = static_cast<unsigned char>(s_[pos_ + std::size_t(i)]);
      if ((cc & 0xC0) != 0x80) fail("invalid UTF-8");
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid UTF-8");
    out.append(s_.substr(pos_, std::size_t(len)));
    pos_ += std::size_t(len);
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const unsigned char c = peek();
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("control character in a string");
      if (c != '\\') {
        copy_utf8(out);
        continue;
      }
      ++pos_;
      if (at_end()) fail("unterminated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.size() - pos_ < 2 || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') {
              fail("high surrogate not followed by a low surrogate");
            }
            pos_ += 2;
            const uint32_t lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("high surrogate not followed by a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: --pos_; fail("invalid escape");
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace parse_impl

// Parses one JSON document; ValueError on anything that is not strict JSON (see above).
inline Value parse(std::string_view text) { return parse_impl::Parser(text).parse_document(); }

// serde_json's string escaping.
inline void write_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

inline void write(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: out += "null"; break;
    case Value::Kind::Bool: out += v.as_bool() ? "true" : "false"; break;
    case Value::Kind::Int:
      if (v.is_negative()) {
        out += std::to_string(v.as_int64());
      } else {
        out += std::to_string(v.as_uint64());
      }
      break;
    case Value::Kind::String: write_string(out, v.as_string()); break;
    case Value::Kind::Array: {
      out += '[';
      bool first = true;
      for (const Value& item : v.as_array()) {
        if (!first) out += ',';
        first = false;
        write(out, item);
      }
      out += ']';
      break;
    }
    case Value::Kind::Object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : v.as_object()) {
        if (!first) out += ',';
        first = false;
        write_string(out, key);
        out += ':';
        write(out, item);
      }
      out += '}';
      break;
    }
  }
}

// Compact JSON text of `v`.
inline std::string dump(const Value& v) {
  std::string out;
  write(out, v);
  return out;
}

}  // namespace tensorplay::detail::json
