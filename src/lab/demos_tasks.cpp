// demos_tasks.cpp: small hand-set pictures of attention at work, for the
// second pass over the lessons (issue "the lessons' second pass", item 6).
//
//   decode_steps  (C2) greedy decoding from <bos>: the word just written picks the
//                 next query, the query attends over the source, the mix votes
//                 for the next word.
//
// Sections: 1 decode_steps, 2 registration.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/softmax.h"
#include "lab/demos_internal.h"

namespace attn::demo_impl {
namespace {

constexpr int kMaxDecodeSteps = 8;

// Index of `label` in `labels`, -1 when absent.
int index_of(const std::vector<std::string>& labels, const std::string& label) {
  const auto it = std::find(labels.begin(), labels.end(), label);
  return it == labels.end() ? -1 : int(it - labels.begin());
}

// ---------------------------------------------------------------- 1 decode_steps
// A first-order decoder, small enough to follow by hand. Its state after reading
// a word is that word's row of Q (a trained decoder's state also remembers the
// words before; this one does not). Step t:
//   q_t = Q[y_(t-1)]                  (1, d)   y_0 = <bos>
//   a_t = softmax(q_t K^T)            (1, S)   over the source words
//   c_t = a_t V                       (1, W)   each source word votes for its translation
//   y_t = argmax c_t                           stop at <eos> or after kMaxDecodeSteps
// Q has one row per word the decoder can read: <bos>, then every target but <eos>.
std::vector<std::string> read_words(const DemoInputs& in) {
  std::vector<std::string> rows = {"<bos>"};
  for (const std::string& w : setting_labels(in, "targets"))
    if (w != "<eos>") rows.push_back(w);
  return rows;
}

void check_decode(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto S = Eigen::Index(in.tokens.size());
  const auto targets = setting_labels(in, "targets");
  need_labels(in.tokens, "tokens", 2, 8, problems);
  need_labels(targets, "targets", 2, 10, problems);
  if (index_of(targets, "<eos>") < 0) problems.push_back({"targets", "'targets' needs the end token <eos>"});
  if (index_of(targets, "<bos>") >= 0) problems.push_back({"targets", "'targets' cannot hold <bos>: decoding starts from it"});
  for (const std::string& w : setting_labels(in, "reference"))
    if (index_of(targets, w) < 0) problems.push_back({"reference", "'reference' uses '" + w + "', which is not a target"});
  need_rows(in, "q", Eigen::Index(read_words(in).size()), "one per word read: <bos>, then every target but <eos>", problems);
  need_rows(in, "k", S, "one key per source word", problems);
  need_cols(in, "k", in.mats.at("q").cols(), "as many as 'q'", problems);
  need_rows(in, "v", S, "one value per source word", problems);
  need_cols(in, "v", Eigen::Index(targets.size()), "one vote per target word", problems);
  need_cols(in, "q", Eigen::Index(setting_labels(in, "features").size()), "one per label of 'features'", problems);
}

DemoOutputs run_decode(const DemoInputs& in) {
  DemoOutputs out;
  const Mat &Q = in.mats.at("q"), &K = in.mats.at("k"), &V = in.mats.at("v");
  const auto& src = in.tokens;
  const auto targets = setting_labels(in, "targets"), reference = setting_labels(in, "reference");
  const auto rows = read_words(in);
  const int eos = index_of(targets, "<eos>");
  const auto features = setting_labels(in, "features");
  // One row per step: the query used, its weights over the source, its votes.
  std::vector<int> written;
  Mat queries(0, Q.cols()), weights(0, K.rows()), votes(0, V.cols());
  std::string read = "<bos>";
  LocalText steps;
  for (int t = 0; t < kMaxDecodeSteps; ++t) {
    const Eigen::Index r = index_of(rows, read);
    const Mat q = Q.row(r);                                     // (1, d)
    const Mat a = softmax_rows(q * K.transpose(), &out.warnings);  // (1, S)
    const Mat c = a * V;                                        // (1, W)
    const int y = int(row_argmax(c, 0));
    for (Mat* m : {&queries, &weights, &votes}) m->conservativeResize(m->rows() + 1, Eigen::NoChange);
    queries.row(t) = q;
    weights.row(t) = a;
    votes.row(t) = c;
    written.push_back(y);
    const Eigen::Index j = row_argmax(a, 0);
    const std::string n = std::to_string(t + 1);
    add_line(steps, "step " + n + ": reads " + read + ", query q_" + read + " = " + fmt_row(q, 0) + ", most weight on " +
                        src[size_t(j)] + " (" + fmt(a(0, j)) + "), writes " + targets[size_t(y)],
             "第 " + n + " 步：读入 " + read + "，查询 q_" + read + " = " + fmt_row(q, 0) + "，权重最大的是 " + src[size_t(j)] +
                 "（" + fmt(a(0, j)) + "），写出 " + targets[size_t(y)]);
    if (y == eos) break;
    read = targets[size_t(y)];
  }
  // How many words from the start agree with the reference.
  int matches = 0;
  while (size_t(matches) < written.size() && size_t(matches) < reference.size() &&
         targets[size_t(written[size_t(matches)])] == reference[size_t(matches)])
    ++matches;
  std::vector<std::string> out_rows;  // "I (1)", "love (2)", ...
  std::string chain = "<bos>", wanted;
  for (size_t t = 0; t < written.size(); ++t) {
    out_rows.push_back(targets[size_t(written[t])] + " (" + std::to_string(t + 1) + ")");
    chain += " → " + targets[size_t(written[t])];
  }
  for (const auto& w : reference) wanted += (wanted.empty() ? "" : " ") + w;
  const bool stopped = written.back() == eos;
  const std::string limit = std::to_string(kMaxDecodeSteps);
  LocalText summary;
  add_line(summary, "Decoded: " + chain + (stopped ? "" : "  (no <eos> after " + limit + " words: stopped)"),
           "解码结果：" + chain + (stopped ? "" : "（" + limit + " 个词后仍没有 <eos>：强行停止）"));
  add_line(summary, "The first " + std::to_string(matches) + " of the " + std::to_string(reference.size()) +
                        " words of the reference " + wanted + " are right.",
           "参考译文 " + wanted + " 共 " + std::to_string(reference.size()) + " 个词，前 " + std::to_string(matches) + " 个写对了。");
  add_line(summary, steps.get("en"), steps.get("zh"));
  out.panels.push_back(editor_panel("q", tr("Q: the query the decoder forms after reading each word",
                                            "Q：解码器读入每个词之后形成的查询"), rows, features));
  out.panels.push_back(editor_panel("k", tr("K: the encoder's keys, one per source word", "K：编码器的键，每个源词一个"), src, features));
  out.panels.push_back(editor_panel("v", tr("V: which target word each source word votes for", "V：每个源词投票给哪个目标词"), src, targets));
  out.panels.push_back(heatmap_panel("queries", "queries", tr("The query of each step: the row of Q of the word just written",
                                                              "每一步的查询：刚写出的那个词在 Q 里的行"), out_rows, features, false));
  out.panels.push_back(heatmap_panel("weights", "weights", tr("Attention of each step over the source (softmax of q_t · k_j)",
                                                              "每一步对源句的注意力（q_t · k_j 的 softmax）"), out_rows, src, true));
  out.panels.push_back(arrows_panel("arrows", "weights", tr("Each written word and the source words it read", "每个写出的词和它读的源词"),
                                    out_rows, src));
  out.panels.push_back(heatmap_panel("votes", "votes", tr("Votes for the next word: the weights times V (the largest is written)",
                                                          "下一个词的得票：权重乘以 V（票数最多的被写出）"), out_rows, targets, false));
  out.panels.push_back(note_panel("decode", tr("Decoding from <bos>, one query per output word", "从 <bos> 开始解码，每个输出词一个查询"), summary));
  out.mats["queries"] = std::move(queries);  // (T, d)
  out.mats["weights"] = std::move(weights);  // (T, S)
  out.mats["votes"] = std::move(votes);      // (T, W)
  out.mats["matches"] = Mat::Constant(1, 1, float(matches));
  out.mats["length"] = Mat::Constant(1, 1, float(written.size()));
  return out;
}

}  // namespace

// ---------------------------------------------------------------- 2 registration
void add_task_demos(std::vector<DemoEntry>& r) {
  r.push_back({"decode_steps",
               {tokens_param(), labels_param("targets"), labels_param("reference"), labels_param("features"),
                matrix_param("q"), matrix_param("k"), matrix_param("v")},
               check_decode, run_decode});
}

}  // namespace attn::demo_impl
