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

// Reads an array of rows of numbers into *out. On failure returns false and sets
// *why to what was expected ("expected an array of rows", "row 2 has 3 numbers,
// expected 2", "row 1, column 0 is not a finite number").
bool from_json(const json::Value& v, Mat* out, std::string* why);

}  // namespace attn
