// text_tasks.cpp: two tasks of curriculum part F on text, each worked through to
// its decision with numbers small enough to check by hand.
//
//   entailment  (F4) premise/hypothesis alignment in the manner of the
//               decomposable attention model (Parikh et al. 2016): attend (each
//               hypothesis word over the premise, through one matrix F that reads
//               both sentences), compare (each word with the premise content it
//               was paired with, feature by feature), decide (entailment, neutral
//               or contradiction). The paper learns its comparison and decision;
//               here they are fixed rules.
//   relations   (F8) relation classification with attention over the words of a
//               sentence, in the manner of Zhou et al. 2016: one query attends
//               over each word's features, among them where the word stands
//               against the two marked names; the attended words' evidence
//               gives the relation. Every pair of names is read at once.
//
// Sections: 1 entailment, 2 relations, 3 the NumPy/PyTorch programs, 4 registration.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/scores.h"
#include "attn/softmax.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

// ---------------------------------------------------------------- 1 entailment
// Premise A (m, d), hypothesis B (n, d), F (d, d_f):
//   1 attend   e_ij = (b_i F) · (a_j F)       (n, m)
//              w_i = softmax_j(e_ij)          (n, m)
//              aligned_i = Σ_j w_ij a_j       (n, d)   the premise content paired with b_i
//   2 compare  c_if = aligned_if / b_if       (n, d)   where b_if ≠ 0, else 0:
//              1 = the premise says the same, -1 = the opposite, 0 = nothing
//              a word follows when every feature it speaks of has c ≥ 0.5, and
//              contradicts when any has c ≤ -0.5; otherwise it is not said
//   3 decide   any word contradicts -> contradiction; every word follows ->
//              entailment; otherwise neutral
constexpr float kSays = 0.5f;  // |c| from which the premise counts as saying (or denying) a feature

void check_entailment(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto hypothesis = setting_labels(in, "targets");
  const auto features = setting_labels(in, "features");
  need_labels(in.tokens, "tokens", 2, 8, problems);
  need_labels(hypothesis, "targets", 1, 6, problems);
  need_labels(features, "features", 1, 6, problems);
  need_rows(in, "premise", Eigen::Index(in.tokens.size()), "one row per premise word", problems);
  need_cols(in, "premise", Eigen::Index(features.size()), "one per label of 'features'", problems);
  need_rows(in, "hypothesis", Eigen::Index(hypothesis.size()), "one row per hypothesis word", problems);
  need_cols(in, "hypothesis", Eigen::Index(features.size()), "one per label of 'features'", problems);
  need_rows(in, "w_f", Eigen::Index(features.size()), "one row per feature", problems);
  need_max_size(in, "w_f", 6, 6, problems);
}

DemoOutputs run_entailment(const DemoInputs& in) {
  DemoOutputs out;
  const Mat &A = in.mats.at("premise"), &B = in.mats.at("hypothesis"), &F = in.mats.at("w_f");
  const auto& premise = in.tokens;
  const auto hypothesis = setting_labels(in, "targets"), features = setting_labels(in, "features");
  const Eigen::Index n = B.rows(), d = B.cols();
  Mat scores = dot_scores(B * F, A * F);               // (n, m)
  Mat weights = softmax_rows(scores, &out.warnings);  // (n, m)
  Mat aligned = weights * A;                           // (n, d)
  Mat compare = Mat::Zero(n, d);                       // (n, d)
  Mat words = Mat::Zero(n, 3);                         // (n, 3) one-hot: follows, not said, contradicts
  bool any_contradicts = false, all_follow = true;
  for (Eigen::Index i = 0; i < n; ++i) {
    bool follows = true, contradicts = false, speaks = false;
    for (Eigen::Index f = 0; f < d; ++f) {
      if (std::abs(B(i, f)) < 1e-6f) continue;
      speaks = true;
      compare(i, f) = aligned(i, f) / B(i, f);
      follows = follows && compare(i, f) >= kSays;
      contradicts = contradicts || compare(i, f) <= -kSays;
    }
    follows = follows && speaks && !contradicts;
    words(i, contradicts ? 2 : follows ? 0 : 1) = 1.0f;
    any_contradicts = any_contradicts || contradicts;
    all_follow = all_follow && follows;
  }
  Mat verdict = Mat::Zero(3, 1);  // (3, 1) one-hot: entailment, neutral, contradiction
  const int v = any_contradicts ? 2 : all_follow ? 0 : 1;
  verdict(v, 0) = 1.0f;

  const std::vector<std::string> word_cols = {"follows", "not said", "contradicts"};
  const std::vector<std::string> verdicts = {"entailment", "neutral", "contradiction"};
  out.panels.push_back(editor_panel("premise", tr("Premise: one row per word", "前提：每个词一行"), premise, features));
  out.panels.push_back(editor_panel("hypothesis", tr("Hypothesis: one row per word", "假设：每个词一行"), hypothesis, features));
  out.panels.push_back(editor_panel("w_f", tr("F: what the pairing compares (it reads both sentences)", "F：配对时比较什么（两个句子都用它）"),
                                    features, dim_labels(F.cols())));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("1 Attend: each hypothesis word over the premise, softmax of (b_i F) · (a_j F)",
                                                              "1 对齐：假设中每个词对前提的注意力，(b_i F) · (a_j F) 的 softmax"),
                                     hypothesis, premise, true));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Who is paired with whom", "谁和谁配成对"), hypothesis, premise));
  out.panels.push_back(heatmap_panel("aligned", "aligned", tr("The premise content paired with each word: Σ_j w_ij a_j",
                                                              "与每个词配对的前提内容：Σ_j w_ij a_j"),
                                     hypothesis, features, false));
  out.panels.push_back(heatmap_panel("compare", "compare", tr("2 Compare: paired content / the word's own, per feature (1 the same, -1 the opposite, 0 not said)",
                                                              "2 比较：逐个特征，配对内容 / 词本身（1 相同，-1 相反，0 没说）"),
                                     hypothesis, features, false));
  out.panels.push_back(heatmap_panel("verdict", "verdict", tr("3 Decide", "3 判断"), verdicts, {}, true));
  LocalText t;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index j = row_argmax(weights, i);
    const int w = int(row_argmax(words, i));
    static const char* const zh_word[] = {"前提说了", "前提没说", "与前提矛盾"};
    add_line(t, "\"" + hypothesis[size_t(i)] + "\" pairs with \"" + premise[size_t(j)] + "\" (" + fmt(weights(i, j)) + "): " +
                    word_cols[size_t(w)],
             "“" + hypothesis[size_t(i)] + "” 与 “" + premise[size_t(j)] + "” 配对（" + fmt(weights(i, j)) + "）：" + zh_word[w]);
  }
  static const char* const zh_verdict[] = {"蕴含", "中立", "矛盾"};
  add_line(t, "Verdict: " + verdicts[size_t(v)] + ". A word follows when the premise says at least half of each thing it says (compare ≥ 0.5); one clash (≤ -0.5) is a contradiction.",
           std::string("结论：") + zh_verdict[v] + "。一个词要算“前提说了”，它说的每一点，前提都得至少说出一半（比较值 ≥ 0.5）；只要有一处冲突（≤ -0.5）就是矛盾。");
  out.panels.push_back(note_panel("decision", tr("The decision written out", "写出判断过程"), t));
  out.mats["scores"] = std::move(scores);    // (n, m)
  out.mats["weights"] = std::move(weights);  // (n, m)
  out.mats["aligned"] = std::move(aligned);  // (n, d)
  out.mats["compare"] = std::move(compare);  // (n, d)
  out.mats["words"] = std::move(words);      // (n, 3)
  out.mats["verdict"] = std::move(verdict);  // (3, 1)
  return out;
}

// ---------------------------------------------------------------- 2 relations
// A sentence of n words, X (n, R): each word's evidence for each of R relations.
// The first entity is the subject; each other entity makes a pair with it. For
// the pair (s, o) every word j gets three key features,
//   relation word  Σ_r X_jr
//   between        1 when j lies strictly between s and o, else 0
//   near o         1 / |j - o|  (0 at o)
// q (1, 3) scores them: s_pj = q · k_pj; the softmax runs over every word but the
// two names (the question is what the other words say about them), and
//   relation_p = Σ_j w_pj X_j  (1, R)  the share of the pair's attention on each relation's words.
void check_relations(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto entities = setting_labels(in, "entities"), relations = setting_labels(in, "relations");
  need_labels(in.tokens, "tokens", 3, 12, problems);
  need_labels(entities, "entities", 2, 4, problems);
  need_labels(relations, "relations", 2, 4, problems);
  for (const auto& e : entities)
    if (std::count(in.tokens.begin(), in.tokens.end(), e) != 1)
      problems.push_back({"entities", "'" + e + "' must be exactly one of the tokens"});
  need_rows(in, "x", Eigen::Index(in.tokens.size()), "one row per word", problems);
  need_cols(in, "x", Eigen::Index(relations.size()), "one per relation", problems);
  need_rows(in, "q", 1, "one query", problems);
  need_cols(in, "q", 3, "relation word, between the names, near the second name", problems);
}

DemoOutputs run_relations(const DemoInputs& in) {
  DemoOutputs out;
  const Mat &X = in.mats.at("x"), &q = in.mats.at("q");  // (n, R), (1, 3)
  const auto& tok = in.tokens;
  const auto entities = setting_labels(in, "entities"), relations = setting_labels(in, "relations");
  const Eigen::Index n = X.rows(), P = Eigen::Index(entities.size()) - 1;
  const int s = index_of(tok, entities[0]);
  std::vector<std::string> pairs, feature_rows = {"relation word"};
  Mat features(1 + 2 * P, n);  // (1 + 2P, n): relation word, then (between, near) per pair
  features.row(0) = X.rowwise().sum().transpose();
  Mat scores(P, n), weights = Mat::Zero(P, n);  // (P, n) each
  for (Eigen::Index p = 0; p < P; ++p) {
    const std::string& object = entities[size_t(p + 1)];
    const int o = index_of(tok, object);
    pairs.push_back("(" + entities[0] + ", " + object + ")");
    feature_rows.push_back("between " + entities[0] + ", " + object);
    feature_rows.push_back("near " + object);
    Mat keys(n, 3);  // (n, 3) this pair's keys
    for (Eigen::Index j = 0; j < n; ++j) {
      const bool between = j > std::min(s, o) && j < std::max(s, o);
      keys(j, 0) = features(0, j);
      keys(j, 1) = between ? 1.0f : 0.0f;
      keys(j, 2) = j == o ? 0.0f : 1.0f / float(std::abs(j - o));
    }
    features.row(1 + 2 * p) = keys.col(1).transpose();
    features.row(2 + 2 * p) = keys.col(2).transpose();
    scores.row(p) = q * keys.transpose();
    // Softmax over the words that are not the pair's names; the largest score is
    // taken off first so exp cannot overflow.
    float top = -INFINITY;
    for (Eigen::Index j = 0; j < n; ++j)
      if (j != s && j != o) top = std::max(top, scores(p, j));
    float sum = 0.0f;
    for (Eigen::Index j = 0; j < n; ++j)
      if (j != s && j != o) sum += weights(p, j) = std::exp(scores(p, j) - top);
    weights.row(p) /= sum;
  }
  Mat relation = weights * X;  // (P, R)

  out.panels.push_back(editor_panel("x", tr("Each word's evidence for each relation", "每个词对每种关系的证据"), tok, relations));
  out.panels.push_back(editor_panel("q", tr("The query: what the attention looks for", "查询：注意力要找什么"), {"q"},
                                    {"relation", "between", "near"}));
  out.panels.push_back(heatmap_panel("features", "features", tr("Key features: each word, and where it stands against each pair",
                                                                "键的特征：每个词，以及它相对每一对名字的位置"),
                                     feature_rows, tok, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Attention of each pair over the words (its two names left out)",
                                                              "每一对名字对各个词的注意力（这两个名字本身不算）"),
                                     pairs, tok, true));
  out.panels.push_back(bars_panel("relation", "relation", tr("The relation: each pair's attention on each relation's words",
                                                             "关系：每一对放在每种关系的词上的注意力"),
                                  pairs, relations));
  LocalText t;
  for (Eigen::Index p = 0; p < P; ++p) {
    const Eigen::Index top = row_argmax(relation, p), word = row_argmax(weights, p);
    float second = -1.0f;
    for (Eigen::Index r = 0; r < relation.cols(); ++r)
      if (r != top) second = std::max(second, relation(p, r));
    const bool tie = relation(p, top) - second < 0.005f;
    const std::string& pair = pairs[size_t(p)];
    const std::string most = tok[size_t(word)] + " " + fmt(weights(p, word));
    if (tie)
      add_line(t, pair + ": no clear relation, " + fmt(relation(p, top)) + " against " + fmt(second) + " (most weight: " + most + ")",
               pair + "：没有明确的关系，" + fmt(relation(p, top)) + " 对 " + fmt(second) + "（权重最大：" + most + "）");
    else
      add_line(t, pair + ": " + relations[size_t(top)] + " " + fmt(relation(p, top)) + " (most weight: " + most + ")",
               pair + "：" + relations[size_t(top)] + " " + fmt(relation(p, top)) + "（权重最大：" + most + "）");
  }
  out.panels.push_back(note_panel("read", tr("What each pair reads", "每一对读出了什么"), t));
  out.mats["features"] = std::move(features);  // (1 + 2P, n)
  out.mats["scores"] = std::move(scores);      // (P, n)
  out.mats["weights"] = std::move(weights);    // (P, n)
  out.mats["relation"] = std::move(relation);  // (P, R)
  return out;
}

// ---------------------------------------------------------------- 3 the NumPy/PyTorch programs
std::string code_entailment(Py& P, const DemoInputs& in) {
  P.mat("A", in_mat(in, "premise"), rows_note("the premise, one row per word", in.tokens));
  P.mat("B", in_mat(in, "hypothesis"), rows_note("the hypothesis, one row per word", setting_labels(in, "targets")));
  P.mat("F", in_mat(in, "w_f"), "what the pairing compares; it reads both sentences");
  P.gap();
  P.block(R"py(scores = (B @ F) @ (A @ F).T  # 1 attend: e_ij = (b_i F) . (a_j F)
weights = softmax(scores)  # each hypothesis word over the premise
aligned = weights @ A  # the premise content paired with each word
speaks = np.abs(B) >= 1e-6  # the features each word says something about
compare = np.where(speaks, aligned / np.where(speaks, B, np.ones_like(B)), np.zeros_like(B))  # 2 compare: 1 same, -1 opposite, 0 not said
contradicts = (speaks & (compare <= -0.5)).any(axis=1)
follows = (~speaks | (compare >= 0.5)).all(axis=1) & speaks.any(axis=1) & ~contradicts
words = np.stack([follows, ~follows & ~contradicts, contradicts], axis=1) * 1.0  # follows, not said, contradicts
verdict = 2 if contradicts.any() else 0 if follows.all() else 1  # 3 decide
verdicts = np.eye(3)[:, [verdict]]  # rows: entailment, neutral, contradiction)py");
  for (const char* o : {"scores", "weights", "aligned", "compare", "words"}) P.show(o);
  P.show("verdict", "verdicts");
  return "Entailment in three steps: attend (align the hypothesis with the premise), compare, decide.";
}

std::string code_relations(Py& P, const DemoInputs& in) {
  const auto entities = setting_labels(in, "entities");
  P.value("words", py_list(in.tokens));
  P.value("entities", py_list(entities), "the first is the subject; each other one makes a pair with it");
  P.mat("X", in_mat(in, "x"), "each word's evidence for each relation: " + join(setting_labels(in, "relations"), ", "));
  P.mat("q", in_mat(in, "q"), "the query: relation word, between the names, near the second name");
  P.gap();
  P.block(R"py(n = len(words)
s = words.index(entities[0])
features, scores, weights = [X.sum(axis=1)], [], []
for name in entities[1:]:
    o = words.index(name)
    between = np.array([1.0 if min(s, o) < j < max(s, o) else 0.0 for j in range(n)])
    near = np.array([0.0 if j == o else 1.0 / abs(j - o) for j in range(n)])
    keys = np.stack([features[0], between, near], axis=1)  # (n, 3)
    row = (q @ keys.T)[0]
    others = np.array([j not in (s, o) for j in range(n)])  # the softmax leaves the two names out
    e = np.where(others, np.exp(row - row[others].max()), np.zeros_like(row))
    features += [between, near]
    scores.append(row)
    weights.append(e / e.sum())
weights = np.stack(weights)
relation = weights @ X  # each pair's attention on each relation's words)py");
  P.show("features", "np.stack(features)");
  P.show("scores", "np.stack(scores)");
  P.show("weights");
  P.show("relation");
  return "Relation classification: one query attends over the words, for each pair of names.";
}

}  // namespace

// ---------------------------------------------------------------- 4 registration
void add_text_task_demos(std::vector<DemoEntry>& r) {
  r.push_back({"entailment",
               {tokens_param(), labels_param("targets"), labels_param("features"), matrix_param("premise"),
                matrix_param("hypothesis"), matrix_param("w_f")},
               check_entailment, run_entailment, code_entailment});
  r.push_back({"relations",
               {tokens_param(), labels_param("entities"), labels_param("relations"), matrix_param("x"), matrix_param("q")},
               check_relations, run_relations, code_relations});
}

}  // namespace attn::demo_impl
