// positional.cpp: sinusoidal tables and combining them with embeddings.
#include "attn/positional.h"

#include <cmath>

namespace attn {

Mat sinusoidal_encoding(const PositionalDesc& desc, std::string* error) {
  if (desc.n < 0 || desc.d < 0 || !(desc.base > 0.0f) || !std::isfinite(desc.base)) {
    if (error) *error = "positional: needs n >= 0, d >= 0 and a finite base > 0";
    return Mat();
  }
  const int n = desc.n, d = desc.d;
  const int pairs = (d + 1) / 2;  // frequencies i = 0 .. pairs-1 (the last may lack a cos)

  // Pass 1: frequencies omega_i = base^(-2i/d) and every angle pos * omega_i, in
  // double: for pos in the hundreds a float angle would already be off by ~1e-5.
  Eigen::ArrayXd omega(pairs);
  for (int i = 0; i < pairs; ++i) omega[i] = std::pow(double(desc.base), -2.0 * i / double(d));
  const Eigen::ArrayXd positions = Eigen::ArrayXd::LinSpaced(n, 0.0, double(n > 0 ? n - 1 : 0));
  const Eigen::MatrixXd angle = positions.matrix() * omega.matrix().transpose();  // (n, pairs)
  const Eigen::MatrixXd sines = angle.array().sin().matrix();
  const Eigen::MatrixXd cosines = angle.array().cos().matrix();

  // Pass 2: lay the columns out.
  Mat PE(n, d);  // (n, d)
  if (desc.layout == PositionalLayout::interleaved) {
    for (int c = 0; c < d; ++c)
      PE.col(c) = (c % 2 == 0 ? sines.col(c / 2) : cosines.col(c / 2)).cast<float>();
  } else {
    const int cos_columns = d / 2;  // odd d: the sin half gets the extra column
    for (int c = 0; c < cos_columns; ++c) PE.col(c) = cosines.col(c).cast<float>();
    for (int c = cos_columns; c < d; ++c) PE.col(c) = sines.col(c - cos_columns).cast<float>();
  }
  return PE;
}

Mat combine_positional(const Mat& X, const Mat& PE, CombineKind kind, std::string* error) {
  if (X.rows() != PE.rows()) {
    if (error) *error = "positional: X has " + std::to_string(X.rows()) + " rows but PE has " + std::to_string(PE.rows());
    return Mat();
  }
  if (kind == CombineKind::sum) {
    if (X.cols() != PE.cols()) {
      if (error)
        *error = "positional: sum needs the same width, X has " + std::to_string(X.cols()) + " columns and PE " +
                 std::to_string(PE.cols());
      return Mat();
    }
    return X + PE;  // (n, d)
  }
  Mat combined(X.rows(), X.cols() + PE.cols());  // (n, d_x + d_pe) = [X | PE]
  combined.leftCols(X.cols()) = X;
  combined.rightCols(PE.cols()) = PE;
  return combined;
}

Mat combine_positional_backward(const Mat& grad_combined, int d_x, CombineKind kind) {
  if (kind == CombineKind::sum) return grad_combined;
  if (d_x < 0 || d_x > grad_combined.cols()) return Mat();  // not a valid split of [X | PE]
  return grad_combined.leftCols(d_x);  // (n, d_x)
}

const char* positional_layout_name(PositionalLayout layout) {
  return layout == PositionalLayout::split_halves ? "split_halves" : "interleaved";
}

const char* combine_kind_name(CombineKind kind) { return kind == CombineKind::concat ? "concat" : "sum"; }

bool parse_positional_layout(const std::string& name, PositionalLayout* layout) {
  if (name == "interleaved") *layout = PositionalLayout::interleaved;
  else if (name == "split_halves" || name == "split") *layout = PositionalLayout::split_halves;
  else return false;
  return true;
}

bool parse_combine_kind(const std::string& name, CombineKind* kind) {
  if (name == "sum") *kind = CombineKind::sum;
  else if (name == "concat" || name == "concatenate") *kind = CombineKind::concat;
  else return false;
  return true;
}

}  // namespace attn
