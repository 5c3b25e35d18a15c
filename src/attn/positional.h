// positional.h: sinusoidal position encoding (Vaswani et al. 2017) and the two
// ways of combining it with token embeddings. Self-attention by itself cannot
// tell positions apart (shuffle the rows of X, the outputs shuffle the same
// way); adding or appending PE gives every row its position.
//
// Frequency of pair i (i = 0, 1, ...): omega_i = 1 / base^(2i / d), so the angle
// of position pos is pos * omega_i; low columns turn fast, high columns slowly.
#pragma once

#include <string>

#include "base/tensor.h"

namespace attn {

enum class PositionalLayout {
  // PE[pos, 2i] = sin(pos * omega_i), PE[pos, 2i+1] = cos(pos * omega_i).
  // Odd d: the last column (index d-1 = 2i) is a lone sin with no cos partner.
  interleaved,
  // "cos | sin": the first d/2 columns (rounded down) are cos(pos * omega_c),
  // c = 0, 1, ...; the remaining columns are sin(pos * omega_c), c = 0, 1, ....
  // Odd d: the sin half has one column more, so both layouts hold exactly the
  // same numbers, only in a different column order.
  split_halves
};

struct PositionalDesc {
  int n = 0;              // positions 0 .. n-1 (rows)
  int d = 0;              // encoding width (columns)
  float base = 10000.0f;  // > 0 (usually > 1)
  PositionalLayout layout = PositionalLayout::interleaved;
};

// PE: (n, d). Angles are computed in double and rounded once to float, so the
// table is accurate even for long sequences. Returns an empty matrix (and sets
// *error) for n < 0, d < 0 or base <= 0.
Mat sinusoidal_encoding(const PositionalDesc& desc, std::string* error = nullptr);

enum class CombineKind {
  sum,    // X + PE; needs the same width d
  concat  // [X | PE]; (n, d_x + d_pe)
};

// Combines embeddings X (n, d_x) with PE (n, d_pe). Returns an empty matrix and
// sets *error when the row counts differ, or widths differ for sum.
Mat combine_positional(const Mat& X, const Mat& PE, CombineKind kind, std::string* error = nullptr);

// dL/dX given dL/dcombined: the identity for sum, the first d_x columns for
// concat (PE is a constant table, so it gets no gradient). Empty when d_x does
// not fit in grad_combined.
Mat combine_positional_backward(const Mat& grad_combined, int d_x, CombineKind kind);

// "interleaved", "split_halves" / "sum", "concat"; parsers also accept "split"
// and "concatenate", and return false for unknown names.
const char* positional_layout_name(PositionalLayout layout);
const char* combine_kind_name(CombineKind kind);
bool parse_positional_layout(const std::string& name, PositionalLayout* layout);
bool parse_combine_kind(const std::string& name, CombineKind* kind);

}  // namespace attn
