// test_json.cpp: the JSON value type, parser (valid and malformed input, limits)
// and writer (compact, pretty, numbers, escapes).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "base/json.h"

using attn::json::parse;
using attn::json::ParseLimits;
using attn::json::Type;
using attn::json::Value;
using attn::json::write;
using attn::json::WriteOptions;

namespace {

// The error text of a parse that must fail ("line L, column C: message").
std::string parse_error(std::string_view text, const ParseLimits& limits = {}) {
  const auto r = parse(text, limits);
  REQUIRE_MESSAGE(!r.ok, "expected a parse error for: " << std::string(text));
  return r.error.to_string();
}

Value parse_ok(std::string_view text) {
  const auto r = parse(text);
  REQUIRE_MESSAGE(r.ok, "unexpected parse error " << r.error.to_string() << " for: " << std::string(text));
  return r.value;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("json: scalars parse to the right types") {
  CHECK(parse_ok("null").is_null());
  CHECK(parse_ok("true").as_bool() == true);
  CHECK(parse_ok(" false ").as_bool() == false);
  CHECK(parse_ok("0").as_number() == 0.0);
  CHECK(parse_ok("-0.5").as_number() == -0.5);
  CHECK(parse_ok("1e3").as_number() == 1000.0);
  CHECK(parse_ok("2.5E-2").as_number() == doctest::Approx(0.025));
  CHECK(parse_ok("123456789").as_number() == 123456789.0);
  CHECK(parse_ok("\"hi\"").as_string() == "hi");
  CHECK(parse_ok("\n\t\r [ ] ").is_array());
  CHECK(parse_ok("{}").is_object());
}

TEST_CASE("json: arrays and objects keep order and nest") {
  const Value v = parse_ok(R"({"b": [1, [2, 3], {"x": null}], "a": "s", "c": true})");
  REQUIRE(v.is_object());
  REQUIRE(v.size() == 3);
  CHECK(v.members()[0].key == "b");
  CHECK(v.members()[1].key == "a");
  CHECK(v.members()[2].key == "c");
  const Value* b = v.find("b");
  REQUIRE(b != nullptr);
  REQUIRE(b->size() == 3);
  CHECK(b->items()[1].items()[1].as_number() == 3.0);
  CHECK(b->items()[2].find("x")->is_null());
  CHECK(v.find("missing") == nullptr);
  CHECK(parse_ok("[1]").find("a") == nullptr);  // find on a non-object
}

TEST_CASE("json: string escapes, \\u and surrogate pairs") {
  CHECK(parse_ok(R"("a\"b\\c\/d\b\f\n\r\t")").as_string() == "a\"b\\c/d\b\f\n\r\t");
  CHECK(parse_ok(R"("\u0041\u00e9\u4E2D")").as_string() == "A\xC3\xA9\xE4\xB8\xAD");  // A, é, 中
  // U+1F600 as a surrogate pair -> 4 UTF-8 bytes.
  CHECK(parse_ok(R"("\uD83D\uDE00")").as_string() == "\xF0\x9F\x98\x80");
  CHECK(parse_ok(R"("\u0000")").as_string() == std::string(1, '\0'));
  // Raw UTF-8 passes through unchanged.
  CHECK(parse_ok("\"\xE6\x88\x91\xE7\x88\xB1\"").as_string() == "\xE6\x88\x91\xE7\x88\xB1");
}

TEST_CASE("json: malformed input gives line, column and a clear message") {
  // The exact example from the brief: a missing comma in an array on line 3.
  CHECK(parse_error("{\n  \"q\": [[1, 2],\n         [3  4]]\n}") == "line 3, column 14: expected ',' or ']', got '4'");
  CHECK(parse_error("") == "line 1, column 1: expected a value, got end of input");
  CHECK(parse_error("   ") == "line 1, column 4: expected a value, got end of input");
  CHECK(parse_error("[1, 2") == "line 1, column 6: expected ',' or ']', got end of input");
  CHECK(parse_error("{\"a\" 1}") == "line 1, column 6: expected ':' after the key, got '1'");
  CHECK(parse_error("{\"a\": 1 \"b\": 2}") == "line 1, column 9: expected ',' or '}', got '\"'");
  CHECK(parse_error("{a: 1}") == "line 1, column 2: expected a string key in double quotes, got 'a'");
  CHECK(parse_error("[1,]") == "line 1, column 4: trailing comma before ']'");
  CHECK(parse_error("{\"a\":1,}") == "line 1, column 8: trailing comma before '}'");
  CHECK(parse_error("[1] 2") == "line 1, column 5: unexpected '2' after the JSON value");
  CHECK(contains(parse_error("tru"), "line 1, column 1: expected a value"));
  CHECK(contains(parse_error("nul"), "line 1, column 1"));
  CHECK(contains(parse_error("'a'"), "got '''"));
  CHECK(contains(parse_error("[NaN]"), "line 1, column 2: expected a value, got 'N'"));
  CHECK(contains(parse_error("\"abc"), "line 1, column 1: unterminated string"));
  CHECK(contains(parse_error("\"a\nb\""), "control character"));
  CHECK(contains(parse_error(R"("\x")"), "invalid escape \\x"));
  CHECK(contains(parse_error(R"("\u12G4")"), "expected 4 hexadecimal digits"));
  CHECK(contains(parse_error(R"("\uD83D")"), "unpaired surrogate"));
  CHECK(contains(parse_error(R"("\uD83Dx")"), "unpaired surrogate"));
  CHECK(contains(parse_error(R"("\uD83D\u0041")"), "unpaired surrogate"));
  CHECK(contains(parse_error(R"("\uDE00")"), "unpaired surrogate"));
  CHECK(contains(parse_error("\"\xC3\""), "invalid UTF-8"));         // truncated sequence
  CHECK(contains(parse_error("\"\xC0\xAF\""), "invalid UTF-8"));     // overlong '/'
  CHECK(contains(parse_error("\"\xED\xA0\x80\""), "invalid UTF-8")); // encoded surrogate
  CHECK(contains(parse_error("\"\xFF\""), "invalid UTF-8"));
  CHECK(contains(parse_error("{\"a\":1,\"a\":2}"), "duplicate key \"a\""));
  CHECK(contains(parse_error("\x01"), "byte 0x01"));
  // Columns count characters, not bytes: "é" is two bytes but one column.
  CHECK(parse_error("[\"\xC3\xA9\" 1]") == "line 1, column 6: expected ',' or ']', got '1'");
}

TEST_CASE("json: number grammar is strict") {
  CHECK(contains(parse_error("01"), "leading zeros"));
  CHECK(contains(parse_error("-"), "expected a digit"));
  CHECK(contains(parse_error("1."), "expected a digit after '.'"));
  CHECK(contains(parse_error(".5"), "expected a value"));
  CHECK(contains(parse_error("1e"), "exponent"));
  CHECK(contains(parse_error("1e+"), "exponent"));
  CHECK(contains(parse_error("+1"), "expected a value"));
  CHECK(contains(parse_error("1e999"), "number out of range"));
  CHECK(contains(parse_error("-1e400"), "number out of range"));
  CHECK(parse_ok("1e-400").as_number() == 0.0);  // underflow to zero is harmless
  CHECK(parse_ok("-0").as_number() == 0.0);
}

TEST_CASE("json: limits on depth and size") {
  std::string deep_ok(64, '['), deep_bad(65, '[');
  deep_ok += std::string(64, ']');
  deep_bad += std::string(65, ']');
  CHECK(parse(deep_ok).ok);
  CHECK(contains(parse_error(deep_bad), "nested more than 64 levels"));
  // Unclosed deep nesting must also stop at the limit, not recurse forever.
  CHECK(contains(parse_error(std::string(100000, '[')), "nested more than 64 levels"));
  ParseLimits small;
  small.max_bytes = 10;
  CHECK(parse("[1,2,3]", small).ok);
  const std::string big = parse_error("[1,2,3,4,5,6]", small);
  CHECK(big == "input is 13 bytes, more than the limit of 10 bytes");
  ParseLimits dup;
  dup.allow_duplicate_keys = true;
  CHECK(parse("{\"a\":1,\"a\":2}", dup).ok);
  // Large objects take the hash-set path of the duplicate check.
  std::string many = "{";
  for (int i = 0; i < 100; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  CHECK(parse(many + "}").ok);
  CHECK(contains(parse_error(many + ",\"k7\":1}"), "duplicate key \"k7\""));
}

TEST_CASE("json: numbers are written round-trippably for float32") {
  using attn::json::format_number;
  using attn::json::NumberStyle;
  CHECK(format_number(0.1f) == "0.1");
  CHECK(format_number(1.0) == "1");
  CHECK(format_number(-2.5) == "-2.5");
  CHECK(format_number(1e-5) == "1e-05");
  // Plain notation for decimal exponents -4 .. 15, scientific outside.
  CHECK(format_number(10.0) == "10");
  CHECK(format_number(-20.0) == "-20");
  CHECK(format_number(100000.0) == "100000");
  CHECK(format_number(0.0001) == "0.0001");
  CHECK(format_number(0.00012f) == "0.00012");
  CHECK(format_number(123456789.0) == "123456790");  // float32 123456792: 8 digits suffice
  CHECK(format_number(1e15) == "1000000000000000");  // shortest text for float32(1e15)
  CHECK(format_number(1e16) == "1e+16");
  CHECK(format_number(3e20) == "3e+20");
  CHECK(format_number(1.5e-7) == "1.5e-07");
  CHECK(format_number(-0.0) == "-0");
  CHECK(format_number(0.0) == "0");
  CHECK(format_number(9.999999f) == "9.999999");
  CHECK(format_number(1.0 / 3.0) == "0.33333334");  // float(1/3) needs 8 digits
  CHECK(format_number(16777217.0) == "16777216");     // rounded to float32 first
  CHECK(format_number(std::nan("")) == "null");
  CHECK(format_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(format_number(1e300) == "null");  // overflows float32
  CHECK(format_number(0.1, NumberStyle::Float64) == "0.1");
  CHECK(format_number(1.0 / 3.0, NumberStyle::Float64) == "0.3333333333333333");
  // Every float in a sweep over many magnitudes reads back exactly, and no
  // shorter rendering (one digit fewer) would.
  float x = 1.0e-9f;
  for (int i = 0; i < 4000; ++i, x *= -1.0137f) {
    const std::string s = format_number(x);
    CHECK_MESSAGE(float(std::strtod(s.c_str(), nullptr)) == x, s);
  }
  double y = 1.0e-12;
  for (int i = 0; i < 2000; ++i, y *= -1.0371) {
    const std::string s = format_number(y, NumberStyle::Float64);
    CHECK_MESSAGE(std::strtod(s.c_str(), nullptr) == y, s);
  }
}

TEST_CASE("json: writer, compact and pretty") {
  Value v = Value::object();
  v.set("name", "attn \"lab\"\n");
  v.set("m", Value::array());
  v.find("m")->push(Value::array()).push(1);
  v.find("m")->items()[0].push(0.5f);
  v.find("m")->push(Value::array()).push(-3);
  v.find("m")->items()[1].push(std::nan(""));
  v.set("empty", Value::object());
  v.set("list", Value::array());
  v.set("flag", false);
  v.set("none", nullptr);
  CHECK(write(v) ==
        R"({"name":"attn \"lab\"\n","m":[[1,0.5],[-3,null]],"empty":{},"list":[],"flag":false,"none":null})");
  WriteOptions pretty;
  pretty.pretty = true;
  CHECK(write(v, pretty) ==
        "{\n"
        "  \"name\": \"attn \\\"lab\\\"\\n\",\n"
        "  \"m\": [\n"
        "    [1, 0.5],\n"
        "    [-3, null]\n"
        "  ],\n"
        "  \"empty\": {},\n"
        "  \"list\": [],\n"
        "  \"flag\": false,\n"
        "  \"none\": null\n"
        "}");
  // Strings (such as warnings) get a line each; numbers share one.
  Value messages = Value::object();
  messages.set("warnings", Value::array());
  messages.find("warnings")->push("first");
  messages.find("warnings")->push("second");
  CHECK(write(messages, pretty) == "{\n  \"warnings\": [\n    \"first\",\n    \"second\"\n  ]\n}");
  // set() on an existing key replaces it in place.
  v.set("name", 7);
  CHECK(v.members()[0].key == "name");
  CHECK(v.members()[0].value.as_number() == 7.0);
  CHECK(v.size() == 6);
}

TEST_CASE("json: quote escapes control characters and repairs bad UTF-8") {
  using attn::json::quote;
  CHECK(quote("a\x01z") == "\"a\\u0001z\"");
  CHECK(quote("tab\there") == "\"tab\\there\"");
  CHECK(quote("\xE4\xB8\xAD") == "\"\xE4\xB8\xAD\"");
  CHECK(quote("bad\xFF") == "\"bad\xEF\xBF\xBD\"");
}

TEST_CASE("json: write then parse gives the same value") {
  const char* docs[] = {
      R"({"a":[1,2.5,-0.125,1e-07,3e+20],"b":{"c":[[],{}],"d":"\u00e9\ud83d\ude00\u0001"},"e":[true,false,null]})",
      R"([[[[["deep"]]]],"x",0])",
      R"("just a string")",
  };
  for (const char* doc : docs) {
    const Value v = parse_ok(doc);
    for (bool pretty : {false, true}) {
      WriteOptions opt;
      opt.pretty = pretty;
      const std::string text = write(v, opt);
      const auto again = parse(text);
      REQUIRE_MESSAGE(again.ok, again.error.to_string() << " in " << text);
      CHECK_MESSAGE(again.value == v, text);
    }
  }
  // Accessors are neutral on a type mismatch.
  const Value n = 3.0;
  CHECK(n.as_string().empty());
  CHECK(n.items().empty());
  CHECK(n.size() == 0);
  CHECK(Value("s").as_number() == 0.0);
  CHECK(Value(true) != Value(1));
  CHECK(std::string(attn::json::type_name(Type::Array)) == "array");
}
