// Sinusoidal position encoding: Eigen vs reference over a sweep of n and d
// (odd d included), known values, the relation between the two layouts,
// combining by sum/concat, errors and the (trivial) backward of combine.
#include <doctest/doctest.h>

#include <cmath>

#include "attn/positional.h"
#include "attn/reference.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"

using namespace attn;
using attn::test::check_close;
using attn::test::random_mat;

TEST_CASE("positional: Eigen matches the reference over a sweep of n and d, both layouts") {
  // Tolerance: both compute the angle in double and round once to float;
  // 2e-7 absolute covers the different order of operations.
  for (PositionalLayout layout : {PositionalLayout::interleaved, PositionalLayout::split_halves}) {
    for (int n : attn::test::kSweep) {
      for (int d : {1, 2, 3, 7, 16, 33}) {
        CAPTURE(positional_layout_name(layout));
        CAPTURE(n);
        CAPTURE(d);
        const PositionalDesc desc{n, d, 10000.0f, layout};
        std::string error;
        const Mat PE = sinusoidal_encoding(desc, &error);
        REQUIRE(error.empty());
        REQUIRE(PE.rows() == n);
        REQUIRE(PE.cols() == d);
        check_close("PE", PE, ref::sinusoidal_encoding(desc), 2e-7, 0.0);
        CHECK((PE.array().abs() <= 1.0f).all());
      }
    }
  }
}

TEST_CASE("positional: known values of the interleaved layout") {
  const Mat PE = sinusoidal_encoding(PositionalDesc{3, 4});
  // pos 0: sin 0 = 0, cos 0 = 1
  check_close("pos 0", PE.row(0), Mat((Mat(1, 4) << 0, 1, 0, 1).finished()), 0.0, 0.0);
  // pos 2, pair 0 (omega = 1); pair 1: omega = 10000^(-2/4) = 1/100
  CHECK(PE(2, 0) == doctest::Approx(std::sin(2.0)).epsilon(1e-6));
  CHECK(PE(2, 1) == doctest::Approx(std::cos(2.0)).epsilon(1e-6));
  CHECK(PE(2, 2) == doctest::Approx(std::sin(0.02)).epsilon(1e-6));
  CHECK(PE(2, 3) == doctest::Approx(std::cos(0.02)).epsilon(1e-6));
  // Another base changes the slow frequencies only.
  const Mat PE100 = sinusoidal_encoding(PositionalDesc{3, 4, 100.0f});
  CHECK(PE100(2, 0) == doctest::Approx(std::sin(2.0)).epsilon(1e-6));
  CHECK(PE100(2, 2) == doctest::Approx(std::sin(0.2)).epsilon(1e-6));
}

TEST_CASE("positional: split halves (cos | sin) holds the same numbers as interleaved, for odd d too") {
  for (int d : {1, 2, 5, 8, 9}) {
    CAPTURE(d);
    const Mat inter = sinusoidal_encoding(PositionalDesc{6, d, 10000.0f, PositionalLayout::interleaved});
    const Mat split = sinusoidal_encoding(PositionalDesc{6, d, 10000.0f, PositionalLayout::split_halves});
    const int cos_columns = d / 2;
    for (int i = 0; i < cos_columns; ++i) {
      check_close("cos column", split.col(i), inter.col(2 * i + 1), 0.0, 0.0);
    }
    for (int i = 0; i < d - cos_columns; ++i) {
      check_close("sin column", split.col(cos_columns + i), inter.col(2 * i), 0.0, 0.0);
    }
    // First row: cos 0 = 1 in the cos half, sin 0 = 0 in the sin half.
    for (int c = 0; c < d; ++c) CHECK(split(0, c) == (c < cos_columns ? 1.0f : 0.0f));
  }
}

TEST_CASE("positional: PE(p) . PE(p + k) depends only on the offset k (interleaved, even d)") {
  // sum_i sin(p w) sin((p+k) w) + cos(p w) cos((p+k) w) = sum_i cos(k w_i)
  const Mat PE = sinusoidal_encoding(PositionalDesc{40, 16});
  for (int k : {1, 3, 7}) {
    const float first = PE.row(0).dot(PE.row(k));
    for (int p = 1; p + k < 40; p += 5) CHECK(PE.row(p).dot(PE.row(p + k)) == doctest::Approx(first).epsilon(1e-4));
  }
}

TEST_CASE("positional: combine by sum and by concatenation - errors on mismatched shapes") {
  Rng rng(3);
  for (int n : attn::test::kSweep) {
    const Mat X = random_mat(rng, n, 5);
    const Mat PE5 = sinusoidal_encoding(PositionalDesc{n, 5});
    const Mat PE3 = sinusoidal_encoding(PositionalDesc{n, 3, 10000.0f, PositionalLayout::split_halves});
    check_close("sum", combine_positional(X, PE5, CombineKind::sum), ref::combine_positional(X, PE5, CombineKind::sum),
                0.0, 0.0);
    const Mat cat = combine_positional(X, PE3, CombineKind::concat);
    REQUIRE(cat.cols() == 8);
    check_close("concat", cat, ref::combine_positional(X, PE3, CombineKind::concat), 0.0, 0.0);
  }
  const Mat X = random_mat(rng, 4, 5);
  std::string error;
  CHECK(combine_positional(X, sinusoidal_encoding(PositionalDesc{4, 3}), CombineKind::sum, &error).size() == 0);
  CHECK(error.find("same width") != std::string::npos);
  error.clear();
  CHECK(combine_positional(X, sinusoidal_encoding(PositionalDesc{3, 5}), CombineKind::concat, &error).size() == 0);
  CHECK(error.find("rows") != std::string::npos);
  error.clear();
  CHECK(sinusoidal_encoding(PositionalDesc{4, 3, 0.0f}, &error).size() == 0);
  CHECK(!error.empty());
  error.clear();
  CHECK(sinusoidal_encoding(PositionalDesc{-1, 3}, &error).size() == 0);
  CHECK(!error.empty());
  CHECK(combine_positional_backward(Mat::Zero(2, 3), 5, CombineKind::concat).size() == 0);
}

TEST_CASE("positional: combine backward w.r.t. X matches finite differences (sum and concat)") {
  Rng rng(9);
  Mat X = random_mat(rng, 3, 4);
  for (CombineKind kind : {CombineKind::sum, CombineKind::concat}) {
    CAPTURE(combine_kind_name(kind));
    const Mat PE = sinusoidal_encoding(PositionalDesc{3, kind == CombineKind::sum ? 4 : 3});
    const Mat combined = combine_positional(X, PE, kind);
    const Mat C = random_mat(rng, combined.rows(), combined.cols());
    const Mat dX = combine_positional_backward(C, int(X.cols()), kind);
    attn::test::check_gradient(combine_kind_name(kind), X, dX,
                               [&] { return attn::test::weighted_sum(combine_positional(X, PE, kind), C); });
  }
}

TEST_CASE("positional names round-trip") {
  PositionalLayout layout = PositionalLayout::interleaved;
  CHECK(parse_positional_layout(positional_layout_name(PositionalLayout::split_halves), &layout));
  CHECK(layout == PositionalLayout::split_halves);
  CHECK(parse_positional_layout("interleaved", &layout));
  CHECK(layout == PositionalLayout::interleaved);
  CombineKind kind = CombineKind::sum;
  CHECK(parse_combine_kind(combine_kind_name(CombineKind::concat), &kind));
  CHECK(kind == CombineKind::concat);
  CHECK_FALSE(parse_combine_kind("product", &kind));
}
