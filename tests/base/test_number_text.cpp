// test_number_text.cpp: the one reader of numbers that come in as text.
#include <doctest/doctest.h>

#include "base/number_text.h"

using attn::NumberText;

TEST_CASE("number text: decimal numbers that fit a float, nothing else") {
  float x = -7.0f;
  CHECK(attn::parse_float_text("3e2", &x) == NumberText::ok);
  CHECK(x == 300.0f);
  CHECK(attn::parse_float_text(" -0.5 ", &x) == NumberText::ok);
  CHECK(x == -0.5f);
  CHECK(attn::parse_float_text("3.4028234663852886e38", &x) == NumberText::ok);
  for (const char* big : {"1e39", "-1e39", "1e400"}) {
    CAPTURE(big);
    x = 1.0f;
    CHECK(attn::parse_float_text(big, &x) == NumberText::beyond_float);
    CHECK(x == 1.0f);
  }
  for (const char* words : {"", " ", "inf", "nan", "0x10", "1,5", "3 e2", "e", "-", "1e", "12abc"}) {
    CAPTURE(words);
    CHECK(attn::parse_float_text(words, &x) == NumberText::not_a_number);
  }
}

TEST_CASE("number text: whole numbers in a range") {
  long long n = -1;
  CHECK(attn::parse_whole_text("300", 0, 1000, &n));
  CHECK(n == 300);
  CHECK(attn::parse_whole_text("3e2", 0, 1000, &n));
  CHECK(n == 300);
  CHECK(attn::parse_whole_text("4294967297", 0, 1ll << 40, &n));
  CHECK(n == 4294967297ll);
  n = 5;
  for (const char* bad : {"2.5", "-1", "1001", "4294967297", "1e400", "3e2x", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(attn::parse_whole_text(bad, 0, 1000, &n));
    CHECK(n == 5);
  }
}
