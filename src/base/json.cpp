// json.cpp: the value type, a recursive-descent parser and the writer.
//
// Sections: 1 value, 2 UTF-8 helpers, 3 parser, 4 writer.
#include "base/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace attn::json {

// ---------------------------------------------------------------- 1 value
const char* type_name(Type type) {
  switch (type) {
    case Type::Null: return "null";
    case Type::Bool: return "bool";
    case Type::Number: return "number";
    case Type::String: return "string";
    case Type::Array: return "array";
    case Type::Object: return "object";
  }
  return "?";
}

Value Value::array() {
  Value v;
  v.data_ = std::vector<Value>{};
  return v;
}

Value Value::object() {
  Value v;
  v.data_ = std::vector<Member>{};
  return v;
}

bool Value::as_bool() const {
  const bool* b = std::get_if<bool>(&data_);
  return b ? *b : false;
}

double Value::as_number() const {
  const double* x = std::get_if<double>(&data_);
  return x ? *x : 0.0;
}

const std::string& Value::as_string() const {
  static const std::string empty;  // immutable, so not global mutable state
  const std::string* s = std::get_if<std::string>(&data_);
  return s ? *s : empty;
}

const std::vector<Value>& Value::items() const {
  static const std::vector<Value> empty;
  const auto* a = std::get_if<std::vector<Value>>(&data_);
  return a ? *a : empty;
}

const std::vector<Member>& Value::members() const {
  static const std::vector<Member> empty;
  const auto* o = std::get_if<std::vector<Member>>(&data_);
  return o ? *o : empty;
}

std::vector<Value>& Value::items() {
  if (!is_array()) data_ = std::vector<Value>{};
  return *std::get_if<std::vector<Value>>(&data_);
}

std::vector<Member>& Value::members() {
  if (!is_object()) data_ = std::vector<Member>{};
  return *std::get_if<std::vector<Member>>(&data_);
}

std::size_t Value::size() const {
  if (is_array()) return items().size();
  if (is_object()) return members().size();
  return 0;
}

Value& Value::push(Value v) {
  auto& a = items();
  a.push_back(std::move(v));
  return a.back();
}

const Value* Value::find(std::string_view key) const {
  for (const Member& m : members())
    if (m.key == key) return &m.value;
  return nullptr;
}

Value* Value::find(std::string_view key) {
  if (!is_object()) return nullptr;
  for (Member& m : members())
    if (m.key == key) return &m.value;
  return nullptr;
}

Value& Value::set(std::string key, Value v) {
  if (Value* existing = find(key)) {
    *existing = std::move(v);
    return *existing;
  }
  auto& o = members();
  o.push_back(Member{std::move(key), std::move(v)});
  return o.back().value;
}

bool operator==(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Null: return true;
    case Type::Bool: return a.as_bool() == b.as_bool();
    case Type::Number: return a.as_number() == b.as_number();
    case Type::String: return a.as_string() == b.as_string();
    case Type::Array: return a.items() == b.items();
    case Type::Object: {
      // Order matters: two objects with the same members in a different order
      // would write differently, so they are not "the same document".
      const auto& x = a.members();
      const auto& y = b.members();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].key != y[i].key || x[i].value != y[i].value) return false;
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------- 2 UTF-8 helpers
namespace {

// Decodes one UTF-8 sequence at s[i]. Returns its length (1-4) and the code point,
// or 0 when the bytes are not well-formed UTF-8 (overlong forms, encoded
// surrogates and code points above U+10FFFF are all rejected).
int decode_utf8(std::string_view s, std::size_t i, unsigned* code_point) {
  const auto byte = [&](std::size_t k) -> unsigned {
    return k < s.size() ? (unsigned char)s[k] : 0u;
  };
  const unsigned b0 = byte(i);
  int len;
  unsigned cp, min;
  if (b0 < 0x80) { *code_point = b0; return 1; }
  if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; min = 0x80; }
  else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; min = 0x800; }
  else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; min = 0x10000; }
  else return 0;
  for (int k = 1; k < len; ++k) {
    const unsigned b = byte(i + std::size_t(k));
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return len;
}

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// ---------------------------------------------------------------- 3 parser
// Recursive descent over the bytes of `text`. The first error stops everything:
// fail() records the message and the byte offset, and every caller returns false.
class Parser {
 public:
  Parser(std::string_view text, const ParseLimits& limits) : text_(text), limits_(limits) {}

  ParseResult run() {
    ParseResult result;
    if (text_.size() > limits_.max_bytes) {
      result.error.message = "input is " + std::to_string(text_.size()) +
                             " bytes, more than the limit of " +
                             std::to_string(limits_.max_bytes) + " bytes";
      return result;
    }
    skip_whitespace();
    if (parse_value(result.value, 0)) {
      skip_whitespace();
      if (pos_ < text_.size()) fail(pos_, "unexpected " + describe(pos_) + " after the JSON value");
    }
    if (failed_) {
      result.value = Value();
      result.error = error_;
      locate(error_offset_, &result.error.line, &result.error.column);
      return result;
    }
    result.ok = true;
    return result;
  }

 private:
  std::string_view text_;
  const ParseLimits& limits_;
  std::size_t pos_ = 0;
  bool failed_ = false;
  std::size_t error_offset_ = 0;
  ParseError error_;

  bool fail(std::size_t offset, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_offset_ = offset;
      error_.message = std::move(message);
    }
    return false;
  }

  // Line and column of a byte offset; computed only when reporting an error.
  void locate(std::size_t offset, int* line, int* column) const {
    int l = 1, c = 1;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
      const unsigned char b = (unsigned char)text_[i];
      if (b == '\n') { ++l; c = 1; }
      else if ((b & 0xC0) != 0x80) ++c;  // continuation bytes do not start a character
    }
    *line = l;
    *column = c;
  }

  // "'x'", "end of input" or "byte 0xNN": what the parser found at `offset`.
  std::string describe(std::size_t offset) const {
    if (offset >= text_.size()) return "end of input";
    const unsigned char b = (unsigned char)text_[offset];
    if (b >= 0x20 && b < 0x7F) return std::string("'") + char(b) + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02X", b);
    return buf;
  }

  void skip_whitespace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool parse_value(Value& out, int depth) {
    if (pos_ >= text_.size()) return fail(pos_, "expected a value, got end of input");
    const char c = text_[pos_];
    switch (c) {
      case '{': return parse_object(out, depth + 1);
      case '[': return parse_array(out, depth + 1);
      case '"': {
        std::string s;
        if (!parse_string(s)) return false;
        out = Value(std::move(s));
        return true;
      }
      case 't': return parse_literal("true", Value(true), out);
      case 'f': return parse_literal("false", Value(false), out);
      case 'n': return parse_literal("null", Value(), out);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number(out);
        return fail(pos_, "expected a value, got " + describe(pos_));
    }
  }

  bool parse_literal(std::string_view word, Value value, Value& out) {
    if (text_.substr(pos_, word.size()) != word) {
      return fail(pos_, "expected a value (true, false, null, a number, a string, an array or an object)");
    }
    pos_ += word.size();
    out = std::move(value);
    return true;
  }

  bool is_digit(std::size_t i) const { return i < text_.size() && text_[i] >= '0' && text_[i] <= '9'; }

  // RFC 8259 grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  // The grammar is checked here; the conversion is left to strtod.
  bool parse_number(Value& out) {
    const std::size_t start = pos_;
    std::size_t i = pos_;
    if (text_[i] == '-') ++i;
    if (!is_digit(i)) return fail(i, "invalid number: expected a digit, got " + describe(i));
    if (text_[i] == '0') {
      ++i;
      if (is_digit(i)) return fail(start, "invalid number: leading zeros are not allowed");
    } else {
      while (is_digit(i)) ++i;
    }
    if (i < text_.size() && text_[i] == '.') {
      ++i;
      if (!is_digit(i)) return fail(i, "invalid number: expected a digit after '.', got " + describe(i));
      while (is_digit(i)) ++i;
    }
    if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
      ++i;
      if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
      if (!is_digit(i)) return fail(i, "invalid number: expected a digit in the exponent, got " + describe(i));
      while (is_digit(i)) ++i;
    }
    const std::string literal(text_.substr(start, i - start));  // strtod needs a terminator
    const double x = std::strtod(literal.c_str(), nullptr);
    if (!std::isfinite(x)) return fail(start, "number out of range: " + literal);
    pos_ = i;
    out = Value(x);
    return true;
  }

  int hex_digit(std::size_t i) const {
    if (i >= text_.size()) return -1;
    const char c = text_[i];
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Reads the 4 hex digits of a \u escape whose backslash is at `at`.
  bool read_u_escape(std::size_t at, unsigned* unit) {
    unsigned v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int d = hex_digit(at + 2 + k);
      if (d < 0) return fail(at, "invalid \\u escape: expected 4 hexadecimal digits");
      v = v * 16 + unsigned(d);
    }
    *unit = v;
    return true;
  }

  bool parse_string(std::string& out) {
    const std::size_t open = pos_;
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= text_.size()) return fail(open, "unterminated string");
      const unsigned char b = (unsigned char)text_[pos_];
      if (b == '"') {
        ++pos_;
        return true;
      }
      if (b < 0x20) {
        return fail(pos_, "control character (byte 0x" + std::string(1, "0123456789ABCDEF"[b >> 4]) +
                              "0123456789ABCDEF"[b & 15] + ") in a string; write it as an escape such as \\n");
      }
      if (b == '\\') {
        if (!parse_escape(out)) return false;
        continue;
      }
      unsigned cp;
      const int len = decode_utf8(text_, pos_, &cp);
      if (len == 0) return fail(pos_, "invalid UTF-8 in a string");
      out.append(text_.substr(pos_, std::size_t(len)));
      pos_ += std::size_t(len);
    }
  }

  bool parse_escape(std::string& out) {
    const std::size_t at = pos_;  // the backslash
    if (at + 1 >= text_.size()) return fail(at, "unterminated string");
    const char e = text_[at + 1];
    pos_ = at + 2;
    switch (e) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return fail(at, "invalid escape \\" + std::string(1, e) + " in a string");
    }
    unsigned unit;
    if (!read_u_escape(at, &unit)) return false;
    pos_ = at + 6;
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      return fail(at, "unpaired surrogate in \\u escape (a low surrogate must follow a high one)");
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      // A high surrogate: the next six characters must be \u followed by a low one.
      unsigned low;
      if (pos_ + 1 >= text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u') {
        return fail(at, "unpaired surrogate in \\u escape (a high surrogate must be followed by \\uDC00-\\uDFFF)");
      }
      if (!read_u_escape(pos_, &low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) {
        return fail(pos_, "unpaired surrogate in \\u escape (expected a low surrogate \\uDC00-\\uDFFF)");
      }
      pos_ += 6;
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, unit);
    return true;
  }

  bool check_depth(int depth) {
    if (depth > limits_.max_depth) {
      return fail(pos_, "arrays and objects nested more than " + std::to_string(limits_.max_depth) +
                            " levels deep");
    }
    return true;
  }

  bool parse_array(Value& out, int depth) {
    if (!check_depth(depth)) return false;
    ++pos_;  // '['
    out = Value::array();
    auto& items = out.items();
    skip_whitespace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skip_whitespace();
      items.emplace_back();
      if (!parse_value(items.back(), depth)) return false;
      skip_whitespace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        skip_whitespace();
        if (pos_ < text_.size() && text_[pos_] == ']') return fail(pos_, "trailing comma before ']'");
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return fail(pos_, "expected ',' or ']', got " + describe(pos_));
    }
  }

  bool parse_object(Value& out, int depth) {
    if (!check_depth(depth)) return false;
    ++pos_;  // '{'
    out = Value::object();
    auto& members = out.members();
    std::unordered_set<std::string> seen_keys;  // used only by large objects
    skip_whitespace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      skip_whitespace();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        return fail(pos_, "expected a string key in double quotes, got " + describe(pos_));
      }
      const std::size_t key_at = pos_;
      std::string key;
      if (!parse_string(key)) return false;
      if (!limits_.allow_duplicate_keys) {
        // A linear scan for the usual small object; a hash set once it grows, so
        // a huge object cannot make the check quadratic.
        bool duplicate = false;
        if (members.size() <= 32) {
          for (const Member& m : members) duplicate = duplicate || m.key == key;
        } else {
          if (seen_keys.empty())
            for (const Member& m : members) seen_keys.insert(m.key);
          duplicate = !seen_keys.insert(key).second;
        }
        if (duplicate) return fail(key_at, "duplicate key \"" + key + "\"");
      }
      skip_whitespace();
      if (pos_ >= text_.size() || text_[pos_] != ':') {
        return fail(pos_, "expected ':' after the key, got " + describe(pos_));
      }
      ++pos_;
      skip_whitespace();
      members.push_back(Member{std::move(key), Value()});
      if (!parse_value(members.back().value, depth)) return false;
      skip_whitespace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        skip_whitespace();
        if (pos_ < text_.size() && text_[pos_] == '}') return fail(pos_, "trailing comma before '}'");
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return fail(pos_, "expected ',' or '}', got " + describe(pos_));
    }
  }
};

}  // namespace

std::string ParseError::to_string() const {
  if (line <= 0) return message;
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
}

ParseResult parse(std::string_view text, const ParseLimits& limits) {
  return Parser(text, limits).run();
}

// ---------------------------------------------------------------- 4 writer
std::string format_number(double x, NumberStyle style) {
  if (!std::isfinite(x)) return "null";
  const bool as_float = style == NumberStyle::Float32;
  const float f = float(x);
  if (as_float && !std::isfinite(f)) return "null";  // a double too large for float32
  const double value = as_float ? double(f) : x;
  const auto round_trips = [&](const char* text) {
    const double back = std::strtod(text, nullptr);
    return as_float ? float(back) == f : back == x;
  };

  // Pass 1: the fewest significant digits N whose text reads back as the same
  // number, so 0.1f is written "0.1" rather than "0.100000001". 9 digits always
  // suffice for a float32 and 17 for a double; a binary search keeps the cost
  // to about four printf/strtod pairs per number (a response can hold millions).
  char sci[40], buf[40];
  int lo = 1, hi = as_float ? 9 : 17;
  std::snprintf(sci, sizeof sci, "%.*e", hi - 1, value);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    std::snprintf(buf, sizeof buf, "%.*e", mid - 1, value);
    if (round_trips(buf)) {
      hi = mid;
      std::memcpy(sci, buf, sizeof buf);
    } else {
      lo = mid + 1;
    }
  }

  // Pass 2: plain notation for decimal exponents -4 .. 15 (Python's rule), so a
  // learner reads 20 and 0.0001, not 2e+01 and 1e-04; scientific otherwise.
  // The same digits are moved around the decimal point, so nothing is rounded
  // twice: "-1.25e+02" -> "-125", "1.2e-03" -> "0.0012".
  const char* e = std::strchr(sci, 'e');
  const int exponent = e ? std::atoi(e + 1) : 0;
  if (exponent < -4 || exponent >= 16) return sci;
  std::string mantissa;  // the significant digits, without sign or point
  for (const char* c = sci; c != e && *c; ++c)
    if (*c >= '0' && *c <= '9') mantissa += *c;
  std::string out = sci[0] == '-' ? "-" : "";
  if (exponent < 0) {
    out += "0." + std::string(std::size_t(-exponent - 1), '0') + mantissa;
  } else if (std::size_t(exponent) + 1 >= mantissa.size()) {
    out += mantissa + std::string(std::size_t(exponent) + 1 - mantissa.size(), '0');
  } else {
    out += mantissa.substr(0, std::size_t(exponent) + 1) + "." + mantissa.substr(std::size_t(exponent) + 1);
  }
  return out;
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = (unsigned char)s[i];
    switch (b) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (b < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", unsigned(b));
      out += buf;
      ++i;
      continue;
    }
    unsigned cp;
    const int len = decode_utf8(s, i, &cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD: the output must stay valid UTF-8
      ++i;
    } else {
      out.append(s.substr(i, std::size_t(len)));
      i += std::size_t(len);
    }
  }
  out += '"';
  return out;
}

namespace {

// Numbers, booleans and null: short enough to share a line. (Strings, such as
// warnings, get a line each.)
bool is_short_scalar(const Value& v) { return v.is_number() || v.is_bool() || v.is_null(); }

void write_value(std::string& out, const Value& v, const WriteOptions& opt, int level) {
  const auto newline = [&](int lvl) {
    out += '\n';
    out.append(std::size_t(lvl * opt.indent), ' ');
  };
  switch (v.type()) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += v.as_bool() ? "true" : "false"; return;
    case Type::Number: out += format_number(v.as_number(), opt.numbers); return;
    case Type::String: out += quote(v.as_string()); return;
    case Type::Array: {
      const auto& items = v.items();
      if (items.empty()) { out += "[]"; return; }
      // Pretty: a vector of numbers stays on one line, so a matrix reads as rows.
      bool flat = !opt.pretty;
      if (opt.pretty) {
        flat = true;
        for (const Value& item : items) flat = flat && is_short_scalar(item);
      }
      out += '[';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += (opt.pretty && flat) ? ", " : ",";
        if (!flat) newline(level + 1);
        write_value(out, items[i], opt, level + 1);
      }
      if (!flat) newline(level);
      out += ']';
      return;
    }
    case Type::Object: {
      const auto& members = v.members();
      if (members.empty()) { out += "{}"; return; }
      out += '{';
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out += ',';
        if (opt.pretty) newline(level + 1);
        out += quote(members[i].key);
        out += opt.pretty ? ": " : ":";
        write_value(out, members[i].value, opt, level + 1);
      }
      if (opt.pretty) newline(level);
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string write(const Value& value, const WriteOptions& options) {
  std::string out;
  write_value(out, value, options, 0);
  return out;
}

}  // namespace attn::json
