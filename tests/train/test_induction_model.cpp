// test_induction_model.cpp: the decoder-only induction model of issue 15 --
// causal attention, a full-model gradient check (also with edited heads), the
// head probes and edits on hand-made weights, and a seeded training run in which
// an induction head forms, carries the repeated half and, ablated, stops doing so.
//
// Sections: 1 helpers, 2 causal attention and edits, 3 gradients, 4 probes,
// 5 training, 6 reports (skipped by default).
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "data/induction.h"
#include "support/gradcheck.h"
#include "train/batch.h"
#include "train/induction_model.h"
#include "train/train_run.h"

using namespace attn;
using namespace attn::train;

namespace {

// ---------------------------------------------------------------- 1 helpers
InductionModelDesc tiny_desc() {
  InductionModelDesc d;
  d.vocab = 5;
  d.max_length = 6;
  d.d_model = 4;
  d.heads = 2;
  d.head_size = 2;
  return d;
}

std::vector<data::InductionSequence> tiny_sequences() {
  std::vector<data::InductionSequence> set(2);
  set[0].tokens = {1, 4, 2, 1, 4, 2};
  set[1].tokens = {3, 0, 3, 0};
  return set;
}

const std::vector<int> kBoth = {0, 1};

void check_all(const std::string& what, InductionModel& m, const std::function<double()>& loss) {
  for (Param* p : m.params()) attn::test::check_gradient(what + " " + p->name, p->value, p->grad, loss);
}

// The result of one seeded training run.
struct InductionRun {
  data::InductionData data;
  InductionModel model;
  std::vector<float> losses;
  double seconds = 0.0;
};

InductionRun train_induction(const InductionModelDesc& md, const data::InductionDesc& dd, int batch, int steps) {
  InductionRun r{data::make_induction(dd), InductionModel(md), {}, 0.0};
  BatchOrder order;
  order.reset(int(r.data.train.size()), batch, md.seed + 99);
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) r.losses.push_back(r.model.train_step(r.data.train, order.next()));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

// ---------------------------------------------------------------- 2 causal attention and edits
TEST_CASE("induction model: causal weights, head scale 0 removes a head's term, an overridden row is renormalised") {
  InductionModel m(tiny_desc());
  const std::vector<int> tokens = {1, 4, 2, 1, 4, 2};
  const std::vector<std::vector<Mat>> w = m.attention(tokens);
  REQUIRE(w.size() == 2);
  REQUIRE(w[0].size() == 2);
  for (const auto& layer : w)
    for (const Mat& P : layer)
      for (int i = 0; i < 6; ++i) {
        CHECK(P.row(i).sum() == doctest::Approx(1.0));
        for (int j = i + 1; j < 6; ++j) CHECK(P(i, j) == 0.0f);  // no peeking at later tokens
      }
  // A later token cannot change an earlier prediction.
  std::vector<int> changed = tokens;
  changed[5] = 0;
  const Mat a = m.logits(tokens), b = m.logits(changed);
  CHECK(a.topRows(5) == b.topRows(5));
  CHECK(a.row(5) != b.row(5));

  // Scale 1 changes nothing; scale 0 on every head leaves embed + pos -> unembed.
  InductionEdits keep;
  keep.scale_head(1, 0, 1.0f);
  CHECK(m.logits(tokens, &keep) == a);
  InductionEdits none;
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) none.scale_head(l, h, 0.0f);
  const Mat direct = m.logits(tokens, &none);
  InductionEdits one;
  one.scale_head(0, 1, 0.0f);
  CHECK(m.logits(tokens, &one) != a);
  // With every head off the prediction at a position depends on its token and position only.
  CHECK(direct.row(0) == m.logits({1, 0, 0, 0, 0, 0}, &none).row(0));

  // Row override: weights (2, -1, 2, 0) become (0.5, 0, 0.5, 0) in row 3 of layer 2, head 1.
  InductionEdits row;
  row.override_row(1, 1, 3, {2.0f, -1.0f, 2.0f, 0.0f, 5.0f});
  const std::vector<std::vector<Mat>> e = m.attention(tokens, &row);
  CHECK(e[1][1](3, 0) == doctest::Approx(0.5));
  CHECK(e[1][1](3, 1) == 0.0f);
  CHECK(e[1][1](3, 2) == doctest::Approx(0.5));
  CHECK(e[1][1](3, 4) == 0.0f);  // beyond the causal limit: ignored
  CHECK(e[1][1].row(2) == w[1][1].row(2));
  CHECK(e[0][1] == w[0][1]);
  // Rows before 3 predict the same; row 3 follows the edit.
  const Mat z = m.logits(tokens, &row);
  CHECK(z.topRows(3) == a.topRows(3));
  CHECK(z.row(3) != a.row(3));
  // An all-zero row becomes uniform.
  InductionEdits zero;
  zero.override_row(0, 0, 2, {0.0f});
  CHECK(m.attention(tokens, &zero)[0][0](2, 1) == doctest::Approx(1.0 / 3.0));
}

// ---------------------------------------------------------------- 3 gradients
TEST_CASE("model gradients: induction model (embedding, learned positions, two causal attention layers, unembedding)") {
  const auto set = tiny_sequences();
  InductionModel m(tiny_desc());
  m.forward_backward(set, kBoth);
  check_all("induction", m, [&] { return double(m.loss(set, kBoth)); });
  // The gradients of an edited model (a scaled head, a fixed row) are right too.
  InductionEdits edits;
  edits.scale_head(0, 1, 0.5f);
  edits.scale_head(1, 0, 0.0f);
  edits.override_row(1, 1, 2, {1.0f, 3.0f, 0.0f});
  m.forward_backward(set, kBoth, &edits);
  check_all("induction, edited", m, [&] { return double(m.loss(set, kBoth, &edits)); });
}

// ---------------------------------------------------------------- 4 probes
TEST_CASE("induction model: previous-token and induction scores of hand-made weights") {
  // tokens a b c | a b c (L = 3), positions 0..5.
  const std::vector<int> tokens = {7, 8, 9, 7, 8, 9};
  Mat prev = Mat::Zero(6, 6), ind = Mat::Zero(6, 6);
  prev(0, 0) = 1.0f;
  for (int i = 1; i < 6; ++i) prev(i, i - 1) = 1.0f;
  for (int i = 0; i < 6; ++i) ind(i, 0) = 1.0f;
  ind(3, 0) = 0.0f;
  ind(3, 1) = 1.0f;  // query 3 (token 7, target 8 at 4) looks at position 1, after the first 7
  ind(4, 0) = 0.0f;
  ind(4, 2) = 1.0f;  // query 4 (token 8) looks at position 2, after the first 8
  CHECK(previous_token_score(prev) == doctest::Approx(1.0));
  CHECK(induction_score(prev, tokens, 3) == doctest::Approx(0.0));
  CHECK(induction_score(ind, tokens, 3) == doctest::Approx(1.0));  // queries 3 and 4 (targets 4 and 5)
  CHECK(previous_token_score(ind) == doctest::Approx(1.0 / 5.0));  // only P(1, 0)
  ind(4, 2) = 0.25f;
  ind(4, 0) = 0.75f;
  CHECK(induction_score(ind, tokens, 3) == doctest::Approx(0.625));
}

// ---------------------------------------------------------------- 6 reports (skipped by default)
// Run with: test_train -tc="report: induction*" --no-skip
TEST_CASE("report: induction hyper-parameters" * doctest::skip()) {
  for (float lr : {0.003f, 0.01f, 0.03f}) {
    for (int heads : {2, 4}) {
      for (uint64_t seed : {1, 2, 3}) {
        InductionModelDesc md;
        md.heads = heads;
        md.head_size = 32 / heads;
        md.optimizer.lr = lr;
        md.seed = seed;
        data::InductionDesc dd;
        dd.half_length = 8;
        dd.vocab = 16;
        dd.distinct_first_half = true;
        dd.train_count = 4096;
        dd.seed = seed;
        InductionRun r = train_induction(md, dd, 32, 0);
        BatchOrder order;
        order.reset(int(r.data.train.size()), 32, seed + 99);
        std::string line;
        int phase = -1;
        const auto start = std::chrono::steady_clock::now();
        for (int s = 1; s <= 800; ++s) {
          r.model.train_step(r.data.train, order.next());
          if (s % 50 == 0) {
            const InductionEval ev = r.model.evaluate(r.data.test, 8);
            char buf[64];
            std::snprintf(buf, sizeof buf, " %d:%.2f/%.2f", s, double(ev.first_half.loss), double(ev.repeated_half.loss));
            line += buf;
            if (phase < 0 && ev.repeated_half.loss < 0.5f * ev.first_half.loss) phase = s;
          }
        }
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const HeadScores hs = head_scores(r.model, r.data.test, 8);
        MESSAGE("lr " << lr << " heads " << heads << " seed " << seed << " phase at " << phase << " steps, "
                      << 800 / sec << " steps/s; induction max " << hs.induction.maxCoeff() << " prev max "
                      << hs.previous_token.maxCoeff() << "\n" << line);
      }
    }
  }
}
