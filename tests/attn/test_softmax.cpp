// Softmax and masks: Eigen vs reference over the shape sweep, awkward inputs
// (+/-1e4, +/-inf, NaN, fully masked rows), mask shapes and the backward pass.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "attn/reference.h"
#include "attn/softmax.h"
#include "support/attn_test_util.h"
#include "support/gradcheck.h"

using namespace attn;
using attn::test::all_finite;
using attn::test::check_close;
using attn::test::contains;
using attn::test::random_mat;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

Mat row_of(std::initializer_list<float> values) {
  Mat M(1, Eigen::Index(values.size()));
  Eigen::Index j = 0;
  for (float v : values) M(0, j++) = v;
  return M;
}
}  // namespace

TEST_CASE("softmax: Eigen matches the reference over the shape sweep, every mask kind") {
  // Tolerance: weights are in [0, 1]; float exp + one division per entry, the
  // reference sums in double: 1e-6 absolute + 1e-5 relative.
  Rng rng(11);
  for (int n_q : attn::test::kSweep) {
    const int n_k = (n_q * 3) / 2 + 1;  // rectangular, odd and even widths
    const Mat logits = random_mat(rng, n_q, n_k, 6.0f);
    BoolMat explicit_allowed(n_q, n_k);
    for (int i = 0; i < n_q; ++i)
      for (int j = 0; j < n_k; ++j) explicit_allowed(i, j) = rng.uniform() < 0.7f;
    const MaskDesc masks[] = {
        MaskDesc{MaskKind::none, {}, BoolMat()},
        MaskDesc{MaskKind::causal, {}, BoolMat()},
        MaskDesc{MaskKind::padding, {std::max(1, n_k / 2)}, BoolMat()},
        MaskDesc{MaskKind::explicit_mask, {}, explicit_allowed},
    };
    for (const MaskDesc& mask : masks) {
      CAPTURE(n_q);
      CAPTURE(mask_kind_name(mask.kind));
      std::string error;
      const BoolMat allowed = build_mask(mask, n_q, n_k, &error);
      REQUIRE(error.empty());
      CHECK(allowed == ref::build_mask(mask, n_q, n_k));
      const Mat P = masked_softmax(logits, allowed);
      check_close("softmax", P, ref::masked_softmax(logits, allowed), 1e-6, 1e-5);
      CHECK(all_finite(P));
    }
  }
}

TEST_CASE("softmax: rows sum to 1 and causal weights vanish above the diagonal") {
  Rng rng(3);
  const int n = 33;
  const Mat logits = random_mat(rng, n, n, 4.0f);
  const Mat P = masked_softmax(logits, build_mask(MaskDesc{MaskKind::causal, {}, BoolMat()}, n, n));
  for (int i = 0; i < n; ++i) {
    CHECK(P.row(i).sum() == doctest::Approx(1.0).epsilon(1e-5));
    for (int j = i + 1; j < n; ++j) CHECK(P(i, j) == 0.0f);
    CHECK(P(i, i) > 0.0f);
  }
  // Padding per query row: row i may see i + 1 keys.
  std::vector<int> lengths;
  for (int i = 0; i < n; ++i) lengths.push_back(i + 1);
  const Mat Pp = masked_softmax(logits, build_mask(MaskDesc{MaskKind::padding, lengths, BoolMat()}, n, n));
  check_close("padding i+1 equals causal", Pp, P, 0.0, 0.0);
}

TEST_CASE("softmax: huge logits do not overflow") {
  Warnings w;
  const Mat P = softmax_rows(row_of({1e4f, -1e4f, 0.0f}), &w);
  CHECK(all_finite(P));
  CHECK(P(0, 0) == 1.0f);
  CHECK(P(0, 1) == 0.0f);
  CHECK(P(0, 2) == 0.0f);
  const Mat tie = softmax_rows(row_of({1e4f, 1e4f, -1e4f}));
  CHECK(tie(0, 0) == doctest::Approx(0.5));
  CHECK(tie(0, 1) == doctest::Approx(0.5));
  // All very negative: the max subtraction keeps them from underflowing to 0/0.
  const Mat low = softmax_rows(row_of({-1e4f, -1e4f - 1.0f}));
  CHECK(low(0, 0) == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-5));
  CHECK(w.empty());
}

TEST_CASE("softmax: +inf, -inf and NaN follow the documented rules and never give NaN") {
  Warnings w;
  // +inf entries share the weight equally, finite ones get nothing.
  const Mat p1 = softmax_rows(row_of({kInf, 1.0f, kInf, -kInf}), &w);
  check_close("+inf share", p1, row_of({0.5f, 0.0f, 0.5f, 0.0f}), 0.0, 0.0);
  // -inf is weight 0.
  const Mat p2 = softmax_rows(row_of({-kInf, 0.0f, 0.0f}), &w);
  check_close("-inf", p2, row_of({0.0f, 0.5f, 0.5f}), 1e-7, 0.0);
  CHECK(w.empty());
  // NaN is treated as masked, with a warning.
  const Mat p3 = softmax_rows(row_of({kNaN, 2.0f, 2.0f}), &w);
  check_close("NaN", p3, row_of({0.0f, 0.5f, 0.5f}), 1e-7, 0.0);
  CHECK(contains(w, "NaN"));
  // Rows with nothing usable are zero, with the fully-masked warning.
  w.clear();
  Mat awkward(3, 2);
  awkward << kNaN, kNaN, -kInf, -kInf, 1.0f, kNaN;
  const Mat p4 = softmax_rows(awkward, &w);
  CHECK(all_finite(p4));
  CHECK(p4.row(0).isZero());
  CHECK(p4.row(1).isZero());
  CHECK(p4(2, 0) == 1.0f);
  CHECK(contains(w, "2 row(s) fully masked (first: row 0)"));
  check_close("awkward vs reference", p4, ref::masked_softmax(awkward, BoolMat()), 0.0, 0.0);
  // A masked +inf does not count.
  BoolMat allowed(1, 3);
  allowed << false, true, true;
  const Mat p5 = masked_softmax(row_of({kInf, 0.0f, 0.0f}), allowed);
  check_close("masked +inf", p5, row_of({0.0f, 0.5f, 0.5f}), 1e-7, 0.0);
}

TEST_CASE("softmax: a fully masked row gives zeros and a warning") {
  Rng rng(5);
  const Mat logits = random_mat(rng, 4, 5);
  Warnings w;
  const BoolMat allowed = build_mask(MaskDesc{MaskKind::padding, {3, 0, 5, 1}, BoolMat()}, 4, 5);
  const Mat P = masked_softmax(logits, allowed, &w);
  CHECK(P.row(1).isZero());
  CHECK(P.row(0).sum() == doctest::Approx(1.0));
  CHECK(P.row(3)(0) == 1.0f);
  REQUIRE(w.size() == 1);
  CHECK(contains(w, "1 row(s) fully masked (first: row 1)"));
  CHECK(all_finite(P));
}

TEST_CASE("masks: shape errors are reported, not thrown") {
  std::string error;
  CHECK(build_mask(MaskDesc{MaskKind::padding, {1, 2}, BoolMat()}, 3, 4, &error).size() == 0);
  CHECK(error.find("key lengths") != std::string::npos);
  error.clear();
  CHECK(build_mask(MaskDesc{MaskKind::explicit_mask, {}, BoolMat::Constant(2, 2, true)}, 3, 4, &error).size() == 0);
  CHECK(error.find("explicit") != std::string::npos);
  error.clear();
  // Lengths beyond n_k clamp rather than fail.
  const BoolMat all = build_mask(MaskDesc{MaskKind::padding, {99}, BoolMat()}, 2, 3, &error);
  CHECK(error.empty());
  CHECK(all.all());
}

TEST_CASE("softmax backward matches finite differences (no mask, with mask)") {
  Rng rng(7);
  Mat logits = random_mat(rng, 3, 4, 2.0f);
  const Mat C = random_mat(rng, 3, 4);
  BoolMat allowed = BoolMat::Constant(3, 4, true);
  allowed(0, 1) = false;
  allowed(2, 3) = false;
  for (int use_mask = 0; use_mask < 2; ++use_mask) {
    const BoolMat mask = use_mask ? allowed : BoolMat();
    const Mat P = masked_softmax(logits, mask);
    const Mat analytic = softmax_backward(P, C);  // dL/dP = C for L = sum C .* P
    attn::test::check_gradient(use_mask ? "softmax masked" : "softmax", logits, analytic,
                               [&] { return attn::test::weighted_sum(masked_softmax(logits, mask), C); });
    if (use_mask) {
      CHECK(analytic(0, 1) == 0.0f);
      CHECK(analytic(2, 3) == 0.0f);
    }
  }
}

TEST_CASE("mask names round-trip") {
  for (MaskKind k : {MaskKind::none, MaskKind::causal, MaskKind::padding, MaskKind::explicit_mask}) {
    MaskKind parsed = MaskKind::none;
    CHECK(parse_mask_kind(mask_kind_name(k), &parsed));
    CHECK(parsed == k);
  }
  MaskKind untouched = MaskKind::causal;
  CHECK_FALSE(parse_mask_kind("diagonal", &untouched));
  CHECK(untouched == MaskKind::causal);
}
