// tensor.h: the few matrix types the core uses, and their shape conventions.
//
// Everything is float32 and row-major: one row per token, matching the paper's
// "x times W" convention (X is (n, d_model), W_Q is (d_model, d_k)) and the JSON
// "array of rows" format of `attnlab eval`.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace attn {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXf;  // column vector, (d)
// Boolean mask: true where a query may attend to a key. (n_q, n_k)
using BoolMat = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Messages the core wants a learner to see (fully masked rows, clipped values...).
// Core functions append to one of these instead of printing or throwing.
using Warnings = std::vector<std::string>;

// The sum of each column, as a vector (cols). A matrix with no rows gives zeros:
// Eigen's colwise().sum() of an empty matrix offsets a null pointer (undefined
// behaviour that UndefinedBehaviorSanitizer reports).
inline Vec column_sums(const Mat& m) {
  return m.rows() == 0 ? Vec(Vec::Zero(m.cols())) : Vec(m.colwise().sum().transpose());
}

// A shape as the core's error messages write it: "(rows, cols)".
inline std::string shape_str(Eigen::Index rows, Eigen::Index cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

}  // namespace attn
