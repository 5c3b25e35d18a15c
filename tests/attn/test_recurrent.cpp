// test_recurrent.cpp: RNN / LSTM / GRU cells (src/attn/recurrent.h).
//
// Sections: 1 helpers, 2 names and validation, 3 hand-computed values (PyTorch gate
// order), 4 Eigen against the naive reference over a sweep of sizes, 5 structure
// (bidirectional layout, T = 0, step API = sequence), 6 gradients against finite
// differences (sequence BPTT and one step).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "attn/recurrent.h"
#include "base/rng.h"
#include "support/gradcheck.h"

using namespace attn;

namespace {

// ---------------------------------------------------------------- 1 helpers
const CellKind kCells[] = {CellKind::rnn_tanh, CellKind::lstm, CellKind::gru};

// doctest prints a const char* in a message as a pointer; messages need a string.
std::string name_of(CellKind cell) { return cell_kind_name(cell); }

Mat random_mat(Rng& rng, Eigen::Index rows, Eigen::Index cols, float scale = 1.0f) {
  Mat m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = scale * rng.normal();
  return m;
}

Vec random_vec(Rng& rng, Eigen::Index n, float scale = 1.0f) {
  Vec v(n);
  for (Eigen::Index k = 0; k < n; ++k) v[k] = scale * rng.normal();
  return v;
}

double max_abs_diff(const Mat& a, const Mat& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  double worst = 0.0;
  for (Eigen::Index r = 0; r < a.rows(); ++r)
    for (Eigen::Index c = 0; c < a.cols(); ++c) worst = std::max(worst, double(std::abs(a(r, c) - b(r, c))));
  return worst;
}

double max_abs_diff(const Vec& a, const Vec& b) { return max_abs_diff(Mat(a.transpose()), Mat(b.transpose())); }

// The tiny weights of the hand-computed cases: element (r, k) of a matrix with
// salt s is ((7r + 3k + 5s) mod 11 - 5) / 10, so no two gate blocks are alike and
// a wrong gate order changes the result (the python script below checks that).
float formula(int salt, int r, int k) { return float((r * 7 + k * 3 + salt * 5) % 11 - 5) / 10.0f; }

RnnWeights formula_weights(CellKind cell, int H, int d_in, int salt) {
  const int GH = gate_count(cell) * H;
  RnnWeights w;
  w.w_ih.resize(GH, d_in);
  w.w_hh.resize(GH, H);
  w.b_ih.resize(GH);
  w.b_hh.resize(GH);
  for (int r = 0; r < GH; ++r) {
    for (int k = 0; k < d_in; ++k) w.w_ih(r, k) = formula(salt, r, k);
    for (int k = 0; k < H; ++k) w.w_hh(r, k) = formula(salt + 1, r, k);
    w.b_ih(r) = formula(salt + 2, r, 0);
    w.b_hh(r) = formula(salt + 3, r, 1);
  }
  return w;
}

Mat rows2(std::initializer_list<std::initializer_list<float>> rows) {
  Mat m(Eigen::Index(rows.size()), Eigen::Index(rows.begin()->size()));
  Eigen::Index r = 0;
  for (const auto& row : rows) {
    Eigen::Index c = 0;
    for (float v : row) m(r, c++) = v;
    ++r;
  }
  return m;
}

Vec vec(std::initializer_list<float> values) {
  Vec v(Eigen::Index(values.size()));
  Eigen::Index k = 0;
  for (float x : values) v(k++) = x;
  return v;
}

}  // namespace

// ---------------------------------------------------------------- 2 names and validation
TEST_CASE("cell names, gate counts and initialisation") {
  CHECK(gate_count(CellKind::rnn_tanh) == 1);
  CHECK(gate_count(CellKind::lstm) == 4);
  CHECK(gate_count(CellKind::gru) == 3);
  for (CellKind cell : kCells) {
    CellKind parsed = CellKind::rnn_tanh;
    CHECK(parse_cell_kind(cell_kind_name(cell), parsed));
    CHECK(parsed == cell);
  }
  CellKind parsed = CellKind::gru;
  CHECK(parse_cell_kind("rnn", parsed));
  CHECK(parsed == CellKind::rnn_tanh);
  CHECK_FALSE(parse_cell_kind("relu", parsed));

  Rng a(7), b(7);
  const RnnWeights wa = init_rnn_weights(CellKind::lstm, 3, 4, a);
  const RnnWeights wb = init_rnn_weights(CellKind::lstm, 3, 4, b);
  CHECK(validate_weights(CellKind::lstm, wa, 3) == "");
  CHECK(wa.w_ih.rows() == 16);
  CHECK(wa.w_ih == wb.w_ih);
  CHECK(wa.b_hh == wb.b_hh);
  CHECK(wa.w_hh.cwiseAbs().maxCoeff() <= 0.5f);  // 1/sqrt(H) = 0.5
  CHECK(wa.w_hh.cwiseAbs().maxCoeff() > 0.3f);
}

TEST_CASE("shape errors are reported, not thrown") {
  Rng rng(1);
  const RnnDesc lstm{CellKind::lstm, false};
  RnnParams p = init_rnn_params(lstm, 3, 5, rng);
  const Mat X = random_mat(rng, 4, 3);
  CHECK(rnn_forward(lstm, p, X).error == "");

  CHECK(rnn_forward(lstm, p, random_mat(rng, 4, 2)).error != "");      // wrong d_in
  CHECK(rnn_forward(lstm, p, X, Mat::Zero(1, 4)).error != "");         // h0 not (D, H)
  CHECK(rnn_forward(lstm, p, X, Mat::Zero(2, 5)).error != "");         // two rows, one direction
  CHECK(rnn_forward(lstm, p, X, Mat(), Mat::Zero(1, 3)).error != "");  // c0 not (D, H)
  CHECK(rnn_forward(RnnDesc{CellKind::gru, false}, p, X).error != "");  // lstm weights for a gru
  CHECK(rnn_forward(RnnDesc{CellKind::lstm, true}, p, X).error != "");  // no reverse weights

  RnnParams gru_params = init_rnn_params(RnnDesc{CellKind::gru, false}, 3, 5, rng);
  CHECK(rnn_forward(RnnDesc{CellKind::gru, false}, gru_params, X, Mat(), Mat::Zero(1, 5)).error != "");
  RnnParams bad = p;
  bad.forward.b_hh.resize(19);
  const std::string e = rnn_forward(lstm, bad, X).error;
  CHECK(e.find("b_hh") != std::string::npos);
  bad = p;
  bad.forward.w_hh.resize(20, 4);
  CHECK(validate_weights(CellKind::lstm, bad.forward) != "");

  CellStep step;
  CHECK(cell_step_forward(CellKind::lstm, p.forward, random_vec(rng, 2), Vec(), Vec(), step) != "");
  CHECK(cell_step_forward(CellKind::lstm, p.forward, random_vec(rng, 3), random_vec(rng, 4), Vec(), step) != "");
  REQUIRE(cell_step_forward(CellKind::lstm, p.forward, random_vec(rng, 3), Vec(), Vec(), step) == "");
  RnnWeights grads = zeros_like(p.forward);
  CellStepGrads sg;
  CHECK(cell_step_backward(CellKind::lstm, p.forward, step, random_vec(rng, 4), Vec(), grads, sg) != "");
  RnnWeights wrong_grads;  // empty accumulator
  CHECK(cell_step_backward(CellKind::lstm, p.forward, step, random_vec(rng, 5), Vec(), wrong_grads, sg) != "");

  const RnnResult fwd = rnn_forward(lstm, p, X);
  RnnOutputGrads og;
  og.h = Mat::Zero(3, 5);  // wrong T
  CHECK(rnn_backward(lstm, p, fwd, og).error != "");
  RnnResult failed;
  failed.error = "boom";
  CHECK(rnn_backward(lstm, p, failed, RnnOutputGrads{}).error != "");
}

// ---------------------------------------------------------------- 3 hand-computed values
// Expected numbers come from this python3 (standard library only) implementation
// of the PyTorch documentation's formulas, independent of the C++ code:
//
//   import math
//   def val(s, r, k): return ((r*7 + k*3 + s*5) % 11 - 5) / 10.0
//   sig = lambda a: 1 / (1 + math.exp(-a))
//   def aff(W, b, v, row): return b[row] + sum(W[row][k]*v[k] for k in range(len(v)))
//   # weights for gate count G, hidden H, input d, salt s:
//   #   w_ih[r][k] = val(s, r, k), w_hh[r][k] = val(s+1, r, k), b_ih[r] = val(s+2, r, 0), b_hh[r] = val(s+3, r, 1)
//   # lstm, unit j: i, f, g, o from blocks 0..3 at row q*H + j of (x, w_ih, b_ih) + (h, w_hh, b_hh)
//   #   c' = f c + i g, h' = o tanh(c')
//   # gru: r, z from blocks 0, 1; n = tanh(aff(w_ih, b_ih, x, 2H+j) + r * aff(w_hh, b_hh, h, 2H+j))
//   #   h' = (1 - z) n + z h
//
// The same script checked that every other permutation of the gate blocks, the
// original GRU variant n = tanh(W_in x + W_hn (r*h) + ...), and h' = z n + (1-z) h
// all change these values by more than 1e-3, so the 1e-5 tolerance below tells
// PyTorch's layout apart from near misses.
TEST_CASE("one step of each cell matches hand-computed PyTorch values") {
  const Vec x = vec({0.5f, -1.0f}), h_prev = vec({0.1f, -0.2f}), c_prev = vec({0.3f, -0.4f});
  const float tol = 1e-5f;  // float32 against values computed in double
  struct Case {
    CellKind cell;
    Vec h, c;
  };
  const Case cases[] = {
      {CellKind::rnn_tanh, vec({0.5298956f, -0.4777000f}), Vec()},
      {CellKind::lstm, vec({-0.1470154f, -0.1201974f}), vec({-0.2123626f, -0.3766986f})},
      {CellKind::gru, vec({-0.1805755f, -0.2553738f}), Vec()},
  };
  for (const Case& k : cases) {
    const std::string cell_name = name_of(k.cell);
    CAPTURE(cell_name);
    const RnnWeights w = formula_weights(k.cell, 2, 2, 0);
    CellStep step;
    REQUIRE(cell_step_forward(k.cell, w, x, h_prev, c_prev, step) == "");
    CHECK(max_abs_diff(step.h, k.h) < tol);
    Vec h_ref, c_ref;
    REQUIRE(ref::cell_step_forward(k.cell, w, x, h_prev, c_prev, h_ref, c_ref) == "");
    CHECK(max_abs_diff(h_ref, k.h) < tol);
    if (k.cell == CellKind::lstm) {
      CHECK(max_abs_diff(step.c, k.c) < tol);
      CHECK(max_abs_diff(c_ref, k.c) < tol);
    } else {
      CHECK(step.c.size() == 0);
    }
  }
}

TEST_CASE("a bidirectional sequence matches hand-computed PyTorch values") {
  // X: (3, 2); forward weights salt 0, reverse weights salt 4; h0, c0: (2, 2).
  const Mat X = rows2({{0.5f, -1.0f}, {0.2f, 0.3f}, {-0.7f, 0.4f}});
  const Mat h0 = rows2({{0.1f, -0.2f}, {-0.3f, 0.25f}});
  const Mat c0 = rows2({{0.3f, -0.4f}, {0.2f, 0.1f}});
  const float tol = 1e-5f;
  struct Case {
    CellKind cell;
    Mat h, h_n, c_n;
  };
  const Case cases[] = {
      {CellKind::rnn_tanh,
       rows2({{0.5298956f, -0.4777000f, 0.6807057f, -0.5459845f},
              {0.3771132f, -0.0740524f, 0.2135892f, -0.2685430f},
              {0.7387783f, -0.1814098f, -0.0549446f, -0.5405979f}}),
       rows2({{0.7387783f, -0.1814098f}, {0.6807057f, -0.5459845f}}), Mat()},
      {CellKind::lstm,
       rows2({{-0.1470154f, -0.1201974f, -0.2589654f, 0.1820353f},
              {-0.0880143f, -0.1188225f, -0.2285037f, 0.1798589f},
              {-0.0899580f, -0.0371501f, -0.1058745f, 0.1674757f}}),
       rows2({{-0.0899580f, -0.0371501f}, {-0.2589654f, 0.1820353f}}),
       rows2({{-0.1952894f, -0.0921904f}, {-0.7852406f, 0.4181032f}})},
      {CellKind::gru,
       rows2({{-0.1805755f, -0.2553738f, -0.6450747f, 0.4705754f},
              {-0.0836058f, -0.2798479f, -0.4650757f, 0.4644120f},
              {-0.0720675f, -0.1724460f, -0.3378195f, 0.4996024f}}),
       rows2({{-0.0720675f, -0.1724460f}, {-0.6450747f, 0.4705754f}}), Mat()},
  };
  for (const Case& k : cases) {
    const std::string cell_name = name_of(k.cell);
    CAPTURE(cell_name);
    const RnnDesc desc{k.cell, true};
    const RnnParams p{formula_weights(k.cell, 2, 2, 0), formula_weights(k.cell, 2, 2, 4)};
    const bool lstm = k.cell == CellKind::lstm;
    const RnnResult fast = rnn_forward(desc, p, X, h0, lstm ? c0 : Mat());
    const RnnResult naive = ref::rnn_forward(desc, p, X, h0, lstm ? c0 : Mat());
    for (const RnnResult* r : {&fast, &naive}) {
      REQUIRE(r->error == "");
      CHECK(max_abs_diff(r->h, k.h) < tol);
      CHECK(max_abs_diff(r->h_n, k.h_n) < tol);
      if (lstm) CHECK(max_abs_diff(r->c_n, k.c_n) < tol);
      else CHECK(r->c_n.size() == 0);
    }
  }
}

// ---------------------------------------------------------------- 4 Eigen against the reference
// Metric: the largest absolute difference over h, h_n and c_n, relative to
// max(1, |reference|) (c can exceed 1). Tolerance 2e-6: float32 dot products of
// up to 64 terms plus Eigen's vectorised tanh / logistic approximations (a few ulp)
// against double loops. Observed natively: at most 2.1e-7 over the sweep and
// 1.5e-7 at T = 257 (the cells are contractive at PyTorch's initial scale, so
// the error does not grow with T); the 10x margin covers other SIMD paths (wasm).
namespace {

double sequence_error(const RnnResult& fast, const RnnResult& naive) {
  double worst = 0.0;
  auto cmp = [&](const Mat& a, const Mat& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    for (Eigen::Index k = 0; k < a.size(); ++k)
      worst = std::max(worst, double(std::abs(a.data()[k] - b.data()[k])) /
                                  std::max(1.0, double(std::abs(b.data()[k]))));
  };
  cmp(fast.h, naive.h);
  cmp(fast.h_n, naive.h_n);
  cmp(fast.c_n, naive.c_n);
  return worst;
}

void compare_with_reference(CellKind cell, bool bidirectional, int T, int H, int d_in, Rng& rng) {
  const RnnDesc desc{cell, bidirectional};
  const int D = bidirectional ? 2 : 1;
  const RnnParams p = init_rnn_params(desc, d_in, H, rng);
  const Mat X = random_mat(rng, T, d_in);
  const Mat h0 = random_mat(rng, D, H, 0.5f);
  const Mat c0 = cell == CellKind::lstm ? random_mat(rng, D, H) : Mat();
  const RnnResult fast = rnn_forward(desc, p, X, h0, c0);
  const RnnResult naive = ref::rnn_forward(desc, p, X, h0, c0);
  REQUIRE(fast.error == "");
  REQUIRE(naive.error == "");
  CHECK(fast.h.rows() == T);
  CHECK(fast.h.cols() == D * H);
  const double err = sequence_error(fast, naive);
  CHECK_MESSAGE(err < 2e-6, name_of(cell) << (bidirectional ? " bidirectional" : "") << " T=" << T
                                                 << " H=" << H << " d_in=" << d_in << ": error " << err);
}

}  // namespace

TEST_CASE("Eigen cells match the naive reference over a sweep of T and H") {
  Rng rng(2024);
  const int sizes[] = {1, 2, 3, 7, 16, 33, 64};
  for (CellKind cell : kCells)
    for (bool bidirectional : {false, true})
      for (int T : sizes)
        for (int H : sizes) compare_with_reference(cell, bidirectional, T, H, 1 + (T + H) % 5, rng);
}

TEST_CASE("Eigen cells match the naive reference over one long sequence (T = 257)") {
  Rng rng(257);
  for (CellKind cell : kCells) compare_with_reference(cell, true, 257, 64, 9, rng);
}

// ---------------------------------------------------------------- 5 structure
TEST_CASE("the reverse half of a bidirectional run is the forward run of the reversed sequence") {
  Rng rng(5);
  for (CellKind cell : kCells) {
    const std::string cell_name = name_of(cell);
    CAPTURE(cell_name);
    const int T = 6, H = 4, d_in = 3;
    const bool lstm = cell == CellKind::lstm;
    const RnnParams p = init_rnn_params(RnnDesc{cell, true}, d_in, H, rng);
    const Mat X = random_mat(rng, T, d_in);
    const Mat h0 = random_mat(rng, 2, H), c0 = lstm ? random_mat(rng, 2, H) : Mat();
    const RnnResult both = rnn_forward(RnnDesc{cell, true}, p, X, h0, c0);
    REQUIRE(both.error == "");

    const Mat X_reversed = X.colwise().reverse();
    const RnnParams only_reverse{p.reverse, RnnWeights()};
    const RnnResult rev = rnn_forward(RnnDesc{cell, false}, only_reverse, X_reversed, h0.row(1),
                                      lstm ? Mat(c0.row(1)) : Mat());
    const RnnResult fwd = rnn_forward(RnnDesc{cell, false}, RnnParams{p.forward, RnnWeights()}, X, h0.row(0),
                                      lstm ? Mat(c0.row(0)) : Mat());
    REQUIRE(rev.error == "");
    REQUIRE(fwd.error == "");
    // Bit-identical: the same operations on the same numbers.
    CHECK(both.h.leftCols(H) == fwd.h);
    CHECK(Mat(both.h.rightCols(H)) == Mat(rev.h.colwise().reverse()));
    CHECK(Mat(both.h_n.row(1)) == rev.h_n);
    CHECK(Mat(both.h_n.row(1)) == Mat(both.h.block(0, H, 1, H)));  // reverse final state sits at t = 0
    CHECK(Mat(both.h_n.row(0)) == Mat(both.h.block(T - 1, 0, 1, H)));
    if (lstm) CHECK(Mat(both.c_n.row(1)) == rev.c_n);
  }
}

TEST_CASE("an empty sequence returns the initial state") {
  Rng rng(6);
  const RnnDesc desc{CellKind::lstm, true};
  const RnnParams p = init_rnn_params(desc, 3, 4, rng);
  const Mat h0 = random_mat(rng, 2, 4), c0 = random_mat(rng, 2, 4);
  const RnnResult r = rnn_forward(desc, p, Mat(0, 3), h0, c0);
  REQUIRE(r.error == "");
  CHECK(r.h.rows() == 0);
  CHECK(r.h.cols() == 8);
  CHECK(r.h_n == h0);
  CHECK(r.c_n == c0);
  RnnOutputGrads g;
  g.h_n = random_mat(rng, 2, 4);
  g.c_n = random_mat(rng, 2, 4);
  const RnnGrads d = rnn_backward(desc, p, r, g);
  REQUIRE(d.error == "");
  CHECK(d.x.rows() == 0);
  CHECK(d.h0 == g.h_n);
  CHECK(d.c0 == g.c_n);
  CHECK(d.forward.w_hh.cwiseAbs().maxCoeff() == 0.0f);
}

TEST_CASE("stepping a cell by hand reproduces the sequence forward and backward") {
  Rng rng(8);
  for (CellKind cell : kCells) {
    const std::string cell_name = name_of(cell);
    CAPTURE(cell_name);
    const int T = 5, H = 4, d_in = 3;
    const bool lstm = cell == CellKind::lstm;
    const RnnDesc desc{cell, false};
    const RnnParams p = init_rnn_params(desc, d_in, H, rng);
    const Mat X = random_mat(rng, T, d_in);
    const Mat h0 = random_mat(rng, 1, H), c0 = lstm ? random_mat(rng, 1, H) : Mat();
    const RnnResult seq = rnn_forward(desc, p, X, h0, c0);
    REQUIRE(seq.error == "");
    RnnOutputGrads og;
    og.h = random_mat(rng, T, H);
    og.h_n = random_mat(rng, 1, H);
    if (lstm) og.c_n = random_mat(rng, 1, H);
    const RnnGrads seq_grads = rnn_backward(desc, p, seq, og);
    REQUIRE(seq_grads.error == "");

    // Forward, one step at a time.
    std::vector<CellStep> steps(T);
    Vec h = h0.row(0).transpose(), c = lstm ? Vec(c0.row(0).transpose()) : Vec();
    for (int t = 0; t < T; ++t) {
      REQUIRE(cell_step_forward(cell, p.forward, X.row(t).transpose(), h, c, steps[t]) == "");
      h = steps[t].h;
      c = steps[t].c;
      // The sequence computes W_ih x for all steps in one product, so rounding may differ slightly.
      CHECK(max_abs_diff(Vec(seq.h.row(t).transpose()), h) < 1e-6);
    }
    // Backward, one step at a time, accumulating the weight gradients.
    RnnWeights grads = zeros_like(p.forward);
    Vec dh_next = og.h_n.row(0).transpose(), dc_next = lstm ? Vec(og.c_n.row(0).transpose()) : Vec();
    Mat dX(T, d_in);
    for (int t = T - 1; t >= 0; --t) {
      CellStepGrads sg;
      const Vec dh = dh_next + og.h.row(t).transpose();
      REQUIRE(cell_step_backward(cell, p.forward, steps[t], dh, dc_next, grads, sg) == "");
      dX.row(t) = sg.x.transpose();
      dh_next = sg.h_prev;
      dc_next = sg.c_prev;
    }
    const double tol = 1e-5;
    CHECK(max_abs_diff(dX, seq_grads.x) < tol);
    CHECK(max_abs_diff(Mat(dh_next.transpose()), seq_grads.h0) < tol);
    if (lstm) CHECK(max_abs_diff(Mat(dc_next.transpose()), seq_grads.c0) < tol);
    CHECK(max_abs_diff(grads.w_ih, seq_grads.forward.w_ih) < tol);
    CHECK(max_abs_diff(grads.w_hh, seq_grads.forward.w_hh) < tol);
    CHECK(max_abs_diff(grads.b_ih, seq_grads.forward.b_ih) < tol);
    CHECK(max_abs_diff(grads.b_hh, seq_grads.forward.b_hh) < tol);
  }
}

// ---------------------------------------------------------------- 6 gradients
// Loss = sum A_h * h + sum A_hn * h_n + sum A_cn * c_n with fixed random A, so
// dL/dh = A_h etc. are exactly the output gradients handed to rnn_backward.
TEST_CASE("BPTT gradients match finite differences (all cells, both directions)") {
  Rng rng(11);
  const int T = 4, d_in = 3, H = 5;
  for (CellKind cell : kCells) {
    for (bool bidirectional : {false, true}) {
      const std::string name = std::string(cell_kind_name(cell)) + (bidirectional ? " bi " : " ");
      CAPTURE(name);
      const bool lstm = cell == CellKind::lstm;
      const RnnDesc desc{cell, bidirectional};
      const int D = bidirectional ? 2 : 1;
      RnnParams p = init_rnn_params(desc, d_in, H, rng);
      Mat X = random_mat(rng, T, d_in);
      Mat h0 = random_mat(rng, D, H, 0.5f);
      Mat c0 = lstm ? random_mat(rng, D, H) : Mat();
      RnnOutputGrads og;
      og.h = random_mat(rng, T, D * H);
      og.h_n = random_mat(rng, D, H);
      if (lstm) og.c_n = random_mat(rng, D, H);

      const std::function<double()> loss = [&]() {
        const RnnResult r = rnn_forward(desc, p, X, h0, c0);
        double sum = 0.0;
        for (Eigen::Index k = 0; k < r.h.size(); ++k) sum += double(og.h.data()[k]) * r.h.data()[k];
        for (Eigen::Index k = 0; k < r.h_n.size(); ++k) sum += double(og.h_n.data()[k]) * r.h_n.data()[k];
        for (Eigen::Index k = 0; k < r.c_n.size(); ++k) sum += double(og.c_n.data()[k]) * r.c_n.data()[k];
        return sum;
      };
      const RnnResult fwd = rnn_forward(desc, p, X, h0, c0);
      const RnnGrads g = rnn_backward(desc, p, fwd, og);
      REQUIRE(g.error == "");
      test::check_gradient(name + "x", X, g.x, loss);
      test::check_gradient(name + "h0", h0, g.h0, loss);
      if (lstm) test::check_gradient(name + "c0", c0, g.c0, loss);
      else CHECK(g.c0.size() == 0);
      for (int d = 0; d < D; ++d) {
        RnnWeights& w = d == 0 ? p.forward : p.reverse;
        const RnnWeights& gw = d == 0 ? g.forward : g.reverse;
        const std::string dir = d == 0 ? "" : "reverse ";
        test::check_gradient(name + dir + "w_ih", w.w_ih, gw.w_ih, loss);
        test::check_gradient(name + dir + "w_hh", w.w_hh, gw.w_hh, loss);
        test::check_gradient(name + dir + "b_ih", w.b_ih, gw.b_ih, loss);
        test::check_gradient(name + dir + "b_hh", w.b_hh, gw.b_hh, loss);
      }
    }
  }
}

TEST_CASE("BPTT with only a gradient on the final state (empty dH)") {
  Rng rng(12);
  const RnnDesc desc{CellKind::lstm, false};
  RnnParams p = init_rnn_params(desc, 3, 5, rng);
  Mat X = random_mat(rng, 4, 3);
  RnnOutputGrads og;
  og.c_n = random_mat(rng, 1, 5);  // only dL/dc_n: a classifier reading the final cell state
  const std::function<double()> loss = [&]() {
    const RnnResult r = rnn_forward(desc, p, X);
    double sum = 0.0;
    for (Eigen::Index k = 0; k < r.c_n.size(); ++k) sum += double(og.c_n.data()[k]) * r.c_n.data()[k];
    return sum;
  };
  const RnnGrads g = rnn_backward(desc, p, rnn_forward(desc, p, X), og);
  REQUIRE(g.error == "");
  test::check_gradient("lstm c_n-only x", X, g.x, loss);
  test::check_gradient("lstm c_n-only w_hh", p.forward.w_hh, g.forward.w_hh, loss);
}

TEST_CASE("single-step backward matches finite differences") {
  Rng rng(13);
  const int d_in = 3, H = 4;
  for (CellKind cell : kCells) {
    const std::string name = std::string(cell_kind_name(cell)) + " step ";
    CAPTURE(name);
    const bool lstm = cell == CellKind::lstm;
    RnnWeights w = init_rnn_weights(cell, d_in, H, rng);
    Vec x = random_vec(rng, d_in), h_prev = random_vec(rng, H, 0.5f), c_prev = lstm ? random_vec(rng, H) : Vec();
    const Vec a_h = random_vec(rng, H), a_c = lstm ? random_vec(rng, H) : Vec();
    const std::function<double()> loss = [&]() {
      CellStep s;
      cell_step_forward(cell, w, x, h_prev, c_prev, s);
      double sum = 0.0;
      for (Eigen::Index k = 0; k < H; ++k) sum += double(a_h[k]) * s.h[k];
      for (Eigen::Index k = 0; k < a_c.size(); ++k) sum += double(a_c[k]) * s.c[k];
      return sum;
    };
    CellStep s;
    REQUIRE(cell_step_forward(cell, w, x, h_prev, c_prev, s) == "");
    RnnWeights grads = zeros_like(w);
    CellStepGrads sg;
    REQUIRE(cell_step_backward(cell, w, s, a_h, a_c, grads, sg) == "");
    test::check_gradient(name + "x", x, sg.x, loss);
    test::check_gradient(name + "h_prev", h_prev, sg.h_prev, loss);
    if (lstm) test::check_gradient(name + "c_prev", c_prev, sg.c_prev, loss);
    else CHECK(sg.c_prev.size() == 0);
    test::check_gradient(name + "w_ih", w.w_ih, grads.w_ih, loss);
    test::check_gradient(name + "w_hh", w.w_hh, grads.w_hh, loss);
    test::check_gradient(name + "b_ih", w.b_ih, grads.b_ih, loss);
    test::check_gradient(name + "b_hh", w.b_hh, grads.b_hh, loss);
  }
}
