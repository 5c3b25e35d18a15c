// json.h: a small JSON library for `attnlab eval` and the lab's saved state.
//
// Written for this project (no third-party code). It never throws: the parser
// reports the first error with its line and column, and refuses absurd input
// (too large, nested too deeply) with a clear message instead of running out of
// memory or stack.
//
// Sections: 1 the value type, 2 parsing, 3 writing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace attn::json {

// ---------------------------------------------------------------- 1 the value type
enum class Type { Null, Bool, Number, String, Array, Object };

// "null", "bool", "number", "string", "array", "object": for error messages.
const char* type_name(Type type);

struct Member;  // one "key": value pair of an object

// A JSON value. Numbers are doubles; objects keep their members in insertion
// order (so a written response lists fields in the order they were added).
class Value {
 public:
  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : data_(b) {}
  Value(double x) : data_(x) {}
  Value(float x) : data_(double(x)) {}
  Value(int x) : data_(double(x)) {}
  Value(long x) : data_(double(x)) {}
  Value(long long x) : data_(double(x)) {}
  Value(unsigned x) : data_(double(x)) {}
  Value(unsigned long x) : data_(double(x)) {}
  Value(unsigned long long x) : data_(double(x)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(std::string_view s) : data_(std::string(s)) {}
  Value(const char* s) : data_(std::string(s)) {}

  static Value array();   // empty array
  static Value object();  // empty object

  Type type() const { return Type(data_.index()); }
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Bool; }
  bool is_number() const { return type() == Type::Number; }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  // Accessors return a neutral value (false, 0, "", empty) on a type mismatch;
  // check the type first when the difference matters.
  bool as_bool() const;
  double as_number() const;
  const std::string& as_string() const;
  const std::vector<Value>& items() const;     // array elements
  const std::vector<Member>& members() const;  // object members, in order
  std::vector<Value>& items();                 // (turns a non-array into [])
  std::vector<Member>& members();              // (turns a non-object into {})

  std::size_t size() const;  // elements of an array, members of an object, else 0

  // Arrays: append. Objects: look up, set (replaces an existing key in place,
  // else appends). find() returns nullptr when the key is absent or this is not
  // an object.
  Value& push(Value v);
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  Value& set(std::string key, Value v);

  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  // The alternative order matches enum Type.
  std::variant<std::monostate, bool, double, std::string, std::vector<Value>,
               std::vector<Member>>
      data_;
};

struct Member {
  std::string key;
  Value value;
};

// ---------------------------------------------------------------- 2 parsing
struct ParseLimits {
  std::size_t max_bytes = 32u << 20;  // refuse larger input (32 MiB)
  int max_depth = 64;                 // arrays/objects nested deeper than this
  bool allow_duplicate_keys = false;  // a repeated key is almost always a mistake
};

struct ParseError {
  int line = 0;    // 1-based; 0 when the error is not tied to a position
  int column = 0;  // 1-based, counted in characters (UTF-8 code points)
  std::string message;
  // "line 3, column 14: expected ',' or ']'"
  std::string to_string() const;
};

struct ParseResult {
  bool ok = false;
  Value value;       // valid when ok
  ParseError error;  // valid when !ok
};

// Parses exactly one JSON value (RFC 8259), surrounded by optional whitespace.
// Strings must be valid UTF-8; \uXXXX escapes, including surrogate pairs, are
// decoded to UTF-8. Numbers that overflow a double are an error.
ParseResult parse(std::string_view text, const ParseLimits& limits = {});

// ---------------------------------------------------------------- 3 writing
enum class NumberStyle {
  Float32,  // shortest "%.Ng" (N <= 9) that reads back as the same float
  Float64,  // shortest "%.Ng" (N <= 17) that reads back as the same double
};

struct WriteOptions {
  bool pretty = false;  // newlines and indentation; arrays of numbers stay on one line
  int indent = 2;       // spaces per level when pretty
  NumberStyle numbers = NumberStyle::Float32;
};

// Non-finite numbers are written as null (JSON has no NaN or infinity).
std::string write(const Value& value, const WriteOptions& options = {});

// One number as write() formats it ("null" when not finite).
std::string format_number(double x, NumberStyle style = NumberStyle::Float32);

// `s` as a quoted JSON string with the necessary escapes.
std::string quote(std::string_view s);

}  // namespace attn::json
