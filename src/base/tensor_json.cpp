#include "base/tensor_json.h"

#include "base/number_text.h"

namespace attn {

json::Value to_json(const Mat& m) {
  json::Value rows = json::Value::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json::Value row = json::Value::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push(m(r, c));
    rows.push(std::move(row));
  }
  return rows;
}

json::Value to_json(const Vec& v) {
  json::Value a = json::Value::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push(v(i));
  return a;
}

bool from_json(const json::Value& v, Eigen::Index max_rows, Eigen::Index max_cols, Mat* out, std::string* why) {
  if (!v.is_array() || v.size() == 0 || !v.items()[0].is_array()) {
    *why = "expected a non-empty array of rows";
    return false;
  }
  // The whole shape first: nothing is allocated from a size the input only claims.
  const size_t cols = v.items()[0].size();
  if (v.size() > size_t(max_rows)) {
    *why = std::to_string(v.size()) + " rows, more than " + std::to_string(max_rows);
    return false;
  }
  if (cols > size_t(max_cols)) {
    *why = std::to_string(cols) + " columns, more than " + std::to_string(max_cols);
    return false;
  }
  for (size_t r = 0; r < v.size(); ++r) {
    const json::Value& row = v.items()[r];
    if (!row.is_array() || row.size() != cols) {
      *why = "row " + std::to_string(r) + " has " + std::to_string(row.size()) + " numbers, expected " +
             std::to_string(cols);
      return false;
    }
  }
  Mat m(Eigen::Index(v.size()), Eigen::Index(cols));
  for (size_t r = 0; r < v.size(); ++r) {
    const json::Value& row = v.items()[r];
    for (size_t c = 0; c < cols; ++c) {
      const json::Value& x = row.items()[c];
      if (!x.is_number() || !finite_float(x.as_number(), &m(Eigen::Index(r), Eigen::Index(c)))) {
        *why = "row " + std::to_string(r) + ", column " + std::to_string(c) +
               " is not a finite number that fits a float (magnitude below 3.4e+38)";
        return false;
      }
    }
  }
  *out = std::move(m);
  return true;
}

}  // namespace attn
