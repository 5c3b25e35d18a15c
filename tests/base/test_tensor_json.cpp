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
