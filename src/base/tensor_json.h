// tensor_json.h: matrices as JSON arrays of rows (the format of `attnlab eval`,
// the lab's saved state and the browser test hook).
#pragma once

#include <string>

#include "base/json.h"
#include "base/tensor.h"

namespace attn {

// (rows, cols) -> [[...], ...]. Non-finite entries become null when written.
json::Value to_json(const Mat& m);
// (d) -> [...]
json::Value to_json(const Vec& v);

// Reads an array of rows of numbers, at most max_rows x max_cols, into *out. The
// shape (the row count and every row's length) is checked before anything is
// allocated. On failure returns false and sets *why to what was expected
// ("expected a non-empty array of rows", "row 2 has 3 numbers, expected 2",
// "700 rows, more than 64", "row 1, column 0 is not a finite number that fits a float ...").
bool from_json(const json::Value& v, Eigen::Index max_rows, Eigen::Index max_cols, Mat* out, std::string* why);

}  // namespace attn
