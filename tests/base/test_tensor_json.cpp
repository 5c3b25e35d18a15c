// test_tensor_json.cpp: matrices read from JSON arrays of rows: the shape is
// checked whole before anything is allocated, and values must fit a float.
#include <doctest/doctest.h>

#include <string>

#include "base/tensor_json.h"

using attn::Mat;
using attn::json::Value;

namespace {

// An array of `rows` rows where row 0 holds `cols` zeros and the others are empty.
Value claimed_shape(int rows, int cols) {
  Value first = Value::array();
  for (int c = 0; c < cols; ++c) first.push(0);
  Value m = Value::array();
  m.push(std::move(first));
  for (int r = 1; r < rows; ++r) m.push(Value::array());
  return m;
}

}  // namespace

TEST_CASE("tensor_json: a claimed shape beyond the limit is refused, not allocated") {
  Mat m;
  std::string why;
  CHECK_FALSE(attn::from_json(claimed_shape(200000, 200000), 64, 64, &m, &why));
  CHECK(why == "200000 rows, more than 64");
  CHECK_FALSE(attn::from_json(claimed_shape(2, 200000), 64, 64, &m, &why));
  CHECK(why == "200000 columns, more than 64");
  // Within the limits, every row's length is checked before allocating.
  CHECK_FALSE(attn::from_json(claimed_shape(3, 4), 64, 64, &m, &why));
  CHECK(why == "row 1 has 0 numbers, expected 4");
  CHECK(m.size() == 0);
  REQUIRE(attn::from_json(claimed_shape(1, 4), 64, 64, &m, &why));
  CHECK(m.rows() == 1);
  CHECK(m.cols() == 4);
}

TEST_CASE("tensor_json: a number a double holds but a float cannot is refused") {
  for (double big : {1e39, -1e39, 3.5e38}) {
    CAPTURE(big);
    Value rows = Value::array();
    Value row = Value::array();
    row.push(0.5);
    row.push(big);
    rows.push(std::move(row));
    Mat m;
    std::string why;
    CHECK_FALSE(attn::from_json(rows, 64, 64, &m, &why));
    CHECK(why == "row 0, column 1 is not a finite number that fits a float (magnitude below 3.4e+38)");
  }
  // The float range's own ends load, and write back to text that loads again.
  Value rows = Value::array();
  Value row = Value::array();
  row.push(3.4028234663852886e38);  // FLT_MAX
  row.push(-3.4028234663852886e38);
  row.push(1.401298464324817e-45);  // the smallest denormal
  rows.push(std::move(row));
  Mat m;
  std::string why;
  REQUIRE(attn::from_json(rows, 64, 64, &m, &why));
  const auto again = attn::json::parse(attn::json::write(attn::to_json(m)));
  REQUIRE(again.ok);
  Mat back;
  REQUIRE(attn::from_json(again.value, 64, 64, &back, &why));
  CHECK(back == m);
}
