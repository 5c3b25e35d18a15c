// tasks.cpp: three small hand-set pictures of attention at work, for the
// second pass over the lessons (issue "the lessons' second pass", item 6).
//
//   decode_steps  (C2) greedy decoding from <bos>: the word just written picks the
//                 next query, the query attends over the source, the mix votes
//                 for the next word.
//   retrieval     (F3) image-text retrieval: each word of a text query attends over
//                 a photo's regions; the photo scores how well every word found
//                 its region (or, to compare, how well it matches the average).
//   crf_tagging   (F7) BIO tags chosen token by token against a linear-chain CRF
//                 (train/crf.h), which scores neighbouring tags too.
//
// Sections: 1 decode_steps, 2 retrieval, 3 crf_tagging, 4 registration.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/softmax.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"
#include "train/crf.h"

namespace attn::demo_impl {
namespace {

constexpr int kMaxDecodeSteps = 8;

// cos(a, b) of two rows; 0 when either is all zeros.
float cosine(const Mat& a, Eigen::Index i, const Mat& b, Eigen::Index j) {
  const float na = a.row(i).norm(), nb = b.row(j).norm();
  return na > 0.0f && nb > 0.0f ? a.row(i).dot(b.row(j)) / (na * nb) : 0.0f;
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

// ---------------------------------------------------------------- 2 retrieval
// Text-to-image matching in the manner of stacked cross attention (Lee et al.
// 2018), made small. The query is m word vectors q_i; each of the N photos is R
// region vectors (rows of `regions`, photo by photo). For photo I:
//   attention:  α_ij = softmax_j(λ cos(q_i, r_j))     (m, R)   each word over the regions
//               a_i = Σ_j α_ij r_j                     (m, d)   what the word found
//   average:    a_i = mean_j r_j                                the same for every word
//   relevance   cos(q_i, a_i)                          (m, N)
//   score(I)    = mean_i relevance(i, I)               (1, N)   the best photo is retrieved
// λ (the sharpness) scales the cosines before the softmax.
void check_retrieval(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto images = setting_labels(in, "images");
  need_labels(in.tokens, "tokens", 1, 4, problems);
  need_labels(images, "images", 2, 4, problems);
  need_rows(in, "q", Eigen::Index(in.tokens.size()), "one vector per query word", problems);
  need_cols(in, "q", Eigen::Index(setting_labels(in, "features").size()), "one per label of 'features'", problems);
  need_cols(in, "regions", in.mats.at("q").cols(), "as many features as 'q'", problems);
  const Eigen::Index rows = in.mats.at("regions").rows(), N = Eigen::Index(images.size());
  if (N > 0 && (rows % N != 0 || rows / N < 2 || rows / N > 6))
    problems.push_back({"regions", "'regions' needs the same number of rows (2 to 6) for every photo: " + std::to_string(N) +
                                       " photos, " + std::to_string(rows) + " rows"});
}

DemoOutputs run_retrieval(const DemoInputs& in) {
  DemoOutputs out;
  const Mat &q = in.mats.at("q"), &regions = in.mats.at("regions");
  const auto images = setting_labels(in, "images");
  const Eigen::Index m = q.rows(), N = Eigen::Index(images.size()), R = regions.rows() / N;
  const bool attend = setting(in, "pooling") == "attention";
  const float sharpness = setting_number(in, "sharpness");
  const auto features = setting_labels(in, "features");
  std::vector<std::string> region_names;  // A1, A2, ..., B1, ...
  for (Eigen::Index I = 0; I < N; ++I)
    for (Eigen::Index j = 0; j < R; ++j) region_names.push_back(images[size_t(I)] + std::to_string(j + 1));
  Mat similarity(m, N * R), weights(m, N * R), relevance(m, N), scores(1, N);
  for (Eigen::Index I = 0; I < N; ++I) {
    const Mat block = regions.middleRows(I * R, R);  // (R, d)
    Mat cos(m, R);
    for (Eigen::Index i = 0; i < m; ++i)
      for (Eigen::Index j = 0; j < R; ++j) cos(i, j) = cosine(q, i, block, j);
    const Mat alpha = attend ? softmax_rows(sharpness * cos, &out.warnings) : Mat(Mat::Constant(m, R, 1.0f / float(R)));
    const Mat found = alpha * block;  // (m, d)
    similarity.middleCols(I * R, R) = cos;
    weights.middleCols(I * R, R) = alpha;
    for (Eigen::Index i = 0; i < m; ++i) relevance(i, I) = cosine(q, i, found, i);
    scores(0, I) = relevance.col(I).mean();
  }
  const Eigen::Index best = row_argmax(scores, 0);
  LocalText t;
  std::string ranking, ranking_zh;
  for (Eigen::Index I = 0; I < N; ++I) {
    ranking += (I ? ", " : "") + images[size_t(I)] + " " + fmt(scores(0, I));
    ranking_zh += (I ? "，" : "") + images[size_t(I)] + " " + fmt(scores(0, I));
  }
  add_line(t, "Retrieved: photo " + images[size_t(best)] + " (scores " + ranking + ").",
           "检索结果：照片 " + images[size_t(best)] + "（得分 " + ranking_zh + "）。");
  for (Eigen::Index i = 0; i < m; ++i) {
    const std::string w = in.tokens[size_t(i)];
    add_line(t, "\"" + w + "\" in " + images[size_t(best)] + ": relevance " + fmt(relevance(i, best)),
             "“" + w + "” 在 " + images[size_t(best)] + " 中：相关度 " + fmt(relevance(i, best)));
  }
  out.panels.push_back(editor_panel("q", tr("The text query: one vector per word", "文本查询：每个词一个向量"), in.tokens, features));
  out.panels.push_back(editor_panel("regions", tr("The photos' regions: one vector per region", "照片的区域：每个区域一个向量"),
                                    region_names, features));
  out.panels.push_back(heatmap_panel("similarity", "similarity", tr("cos(word, region)", "cos(词, 区域)"), in.tokens, region_names, false));
  out.panels.push_back(heatmap_panel("weights", "weights",
                                     attend ? tr("Each word's attention over each photo's regions (softmax of λ·cos, per photo)",
                                                 "每个词对每张照片各区域的注意力（每张照片内对 λ·cos 做 softmax）")
                                            : tr("Averaging: every region of a photo counts the same", "平均：一张照片的每个区域分量相同"),
                                     in.tokens, region_names, true));
  out.panels.push_back(heatmap_panel("relevance", "relevance", tr("Relevance: cos(word, what it found in the photo)",
                                                                  "相关度：cos(词, 它在照片里找到的内容)"), in.tokens, images, false));
  out.panels.push_back(bars_panel("scores", "scores", tr("Photo score: the mean relevance of the words", "照片得分：各词相关度的平均"),
                                  {"score"}, images));
  out.panels.push_back(note_panel("retrieved", tr("Retrieved", "检索结果"), t));
  out.panels.push_back(choice_panel("pooling", tr("How a word meets a photo", "词怎样与照片比较"), {"attention", "average"},
                                    {tr("attention over its regions", "对各区域做注意力"), tr("the average of its regions", "各区域的平均")}));
  out.panels.push_back(slider_panel("sharpness", tr("Sharpness λ of the softmax", "softmax 的锐度 λ"), 1.0f, 20.0f, 1.0f));
  out.mats["similarity"] = std::move(similarity);  // (m, N*R)
  out.mats["weights"] = std::move(weights);        // (m, N*R)
  out.mats["relevance"] = std::move(relevance);    // (m, N)
  out.mats["scores"] = std::move(scores);          // (1, N)
  return out;
}

// ---------------------------------------------------------------- 3 crf_tagging
// Emissions E (n, T): each token's score for each tag, as a tagger's last layer
// (self-attention layers, say) would give them. Two decoders: each token's own
// best tag, and a CRF whose transitions follow the BIO rules (0 where a pair is
// allowed, -penalty where it is not), decoded by Viterbi.
void check_crf(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto tags = setting_labels(in, "tags");
  need_labels(in.tokens, "tokens", 2, 10, problems);
  need_labels(tags, "tags", 2, 9, problems);
  need_rows(in, "emissions", Eigen::Index(in.tokens.size()), "one row per token", problems);
  need_cols(in, "emissions", Eigen::Index(tags.size()), "one score per tag", problems);
}

Mat one_hot_rows(const std::vector<int>& tags, Eigen::Index T) {
  Mat m = Mat::Zero(Eigen::Index(tags.size()), T);
  for (size_t t = 0; t < tags.size(); ++t) m(Eigen::Index(t), tags[t]) = 1.0f;
  return m;
}

DemoOutputs run_crf(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& E = in.mats.at("emissions");
  const auto tags = setting_labels(in, "tags");
  const Eigen::Index T = E.cols();
  Mat A, start;
  train::bio_transitions(tags, setting_number(in, "penalty"), &A, &start);
  const train::TagPath own = train::independent_tags(E, A, start), crf = train::viterbi_decode(E, A, start);
  const int own_bad = train::bio_violations(tags, own.tags), crf_bad = train::bio_violations(tags, crf.tags);
  Mat transitions(T + 1, T);  // row 0: the start, then one row per previous tag
  transitions << start, A;
  std::vector<std::string> from = {"start"};
  from.insert(from.end(), tags.begin(), tags.end());
  auto line = [&](const train::TagPath& p) {
    std::string s;
    for (size_t t = 0; t < p.tags.size(); ++t) s += (t ? " " : "") + in.tokens[t] + "/" + tags[size_t(p.tags[t])];
    return s;
  };
  // The forbidden pairs of a path, "O → I-A1 (car)", in English or Chinese punctuation.
  auto broken = [&](const train::TagPath& p, bool zh) {
    std::string s;
    for (size_t t = 0; t < p.tags.size(); ++t) {
      const std::string prev = t ? tags[size_t(p.tags[t - 1])] : "start";
      if (!train::bio_allowed(t ? prev : "", tags[size_t(p.tags[t])]))
        s += (s.empty() ? "" : zh ? "，" : ", ") + prev + " → " + tags[size_t(p.tags[t])] + (zh ? "（" : " (") + in.tokens[t] +
             (zh ? "）" : ")");
    }
    return s;
  };
  LocalText t;
  add_line(t, "Each token alone: " + line(own) + "  score " + fmt(own.score) + ", " + std::to_string(own_bad) + " forbidden pair" +
                  (own_bad == 1 ? "" : "s") + (own_bad ? ": " + broken(own, false) : ""),
           "逐词独立：" + line(own) + "  得分 " + fmt(own.score) + "，" + std::to_string(own_bad) + " 处不允许的相邻标签" +
               (own_bad ? "：" + broken(own, true) : ""));
  add_line(t, "CRF (Viterbi): " + line(crf) + "  score " + fmt(crf.score) + ", " + std::to_string(crf_bad) + " forbidden pair" +
                  (crf_bad == 1 ? "" : "s") + (crf_bad ? ": " + broken(crf, false) : ""),
           "CRF（维特比）：" + line(crf) + "  得分 " + fmt(crf.score) + "，" + std::to_string(crf_bad) + " 处不允许的相邻标签" +
               (crf_bad ? "：" + broken(crf, true) : ""));
  add_line(t, "Score = the emissions of the chosen tags + the transitions between them.",
           "得分 = 所选标签的发射分数 + 相邻标签之间的转移分数。");
  out.panels.push_back(editor_panel("emissions", tr("Emissions: each token's score for each tag", "发射分数：每个词对每个标签的分数"),
                                    in.tokens, tags));
  out.panels.push_back(heatmap_panel("transitions", "transitions",
                                     tr("Transitions: score of a tag (column) after a tag (row); BIO forbids I-X after anything but B-X, I-X",
                                        "转移分数：某标签（列）跟在某标签（行）后面的分数；BIO 规定 I-X 只能跟在 B-X 或 I-X 后面"),
                                     from, tags, false));
  out.panels.push_back(heatmap_panel("independent", "independent", tr("Each token's own best tag", "每个词各自最好的标签"), in.tokens, tags, true));
  out.panels.push_back(heatmap_panel("crf", "crf", tr("The CRF's best sequence", "CRF 的最佳序列"), in.tokens, tags, true));
  out.panels.push_back(note_panel("paths", tr("The two tag sequences", "两个标签序列"), t));
  out.panels.push_back(slider_panel("penalty", tr("Penalty for a forbidden pair of tags", "不允许的相邻标签的罚分"), 0.0f, 10.0f, 0.1f));
  out.mats["transitions"] = std::move(transitions);  // (T + 1, T)
  out.mats["independent"] = one_hot_rows(own.tags, T);  // (n, T)
  out.mats["crf"] = one_hot_rows(crf.tags, T);           // (n, T)
  out.mats["path_scores"] = (Mat(1, 2) << own.score, crf.score).finished();
  out.mats["forbidden"] = (Mat(1, 2) << float(own_bad), float(crf_bad)).finished();
  return out;
}


// ---------------------------------------------------------------- the NumPy/PyTorch programs
std::string code_decode_steps(Py& P, const DemoInputs& in) {
  const auto targets = setting_labels(in, "targets");
  std::vector<std::string> reads = {"<bos>"};
  for (const auto& t : targets)
    if (t != "<eos>") reads.push_back(t);
  P.value("source", py_list(in.tokens));
  P.value("targets", py_list(targets), "the words the decoder can write");
  P.value("reads", py_list(reads), "the rows of Q: the word just read");
  P.value("reference", py_list(setting_labels(in, "reference")));
  P.mat("Q", in_mat(in, "q"), "the query after reading each word");
  P.mat("K", in_mat(in, "k"), "the encoder's keys, one per source word");
  P.mat("V", in_mat(in, "v"), "which target word each source word votes for");
  P.gap();
  P.block(R"py(queries, weights, votes, written = [], [], [], []
word = "<bos>"
for step in range(8):  # at most 8 words
    q = Q[reads.index(word)]
    a = softmax(q @ K.T)  # attention over the source words
    c = a @ V  # votes for each target word
    queries.append(q)
    weights.append(a)
    votes.append(c)
    word = targets[int(np.argmax(c))]  # greedy: the most votes
    written.append(word)
    if word == "<eos>":
        break
matches = 0
while matches < min(len(written), len(reference)) and written[matches] == reference[matches]:
    matches += 1)py");
  P.show("queries", "np.stack(queries)");
  P.show("weights", "np.stack(weights)");
  P.show("votes", "np.stack(votes)");
  P.show("matches", "[[matches]]");
  P.show("length", "[[len(written)]]");
  return "Greedy decoding from <bos>, one attention step per written word.";
}

std::string code_retrieval(Py& P, const DemoInputs& in) {
  const bool attend = setting(in, "pooling") == "attention";
  const auto images = setting_labels(in, "images");
  P.mat("q", in_mat(in, "q"), rows_note("the text query, one row per word", in.tokens));
  P.mat("regions", in_mat(in, "regions"), "the photos' regions, photo after photo (" + join(images, ", ") + ")");
  P.value("photos", std::to_string(images.size()));
  if (attend) P.value("sharpness", num(setting_number(in, "sharpness")), "lambda");
  P.gap();
  P.gap();
  unit_rows_def(P);
  P.gap();
  P.block(R"py(R = regions.shape[0] // photos  # regions per photo
similarity, weights, relevance = [], [], []
for I in range(photos):
    block = regions[I * R:(I + 1) * R]
    cos = unit(q) @ unit(block).T  # cos(word, region))py");
  P(attend ? "    alpha = softmax(sharpness * cos)  # each word's attention over the regions"
           : "    alpha = np.full(cos.shape, 1.0 / R)  # average: every region the same");
  P.block(R"py(    found = alpha @ block  # what each word found in the photo
    similarity.append(cos)
    weights.append(alpha)
    relevance.append((unit(q) * unit(found)).sum(axis=1))  # cos(word, what it found)
relevance = np.stack(relevance, axis=1)
scores = relevance.mean(axis=0, keepdims=True)  # each photo: the mean relevance)py");
  P.show("similarity", "np.concatenate(similarity, axis=1)");
  P.show("weights", "np.concatenate(weights, axis=1)");
  P.show("relevance");
  P.show("scores");
  return "Image-text retrieval: each word attends over each photo's regions.";
}

std::string code_crf_tagging(Py& P, const DemoInputs& in) {
  P.value("tokens", py_list(in.tokens));
  P.value("tags", py_list(setting_labels(in, "tags")));
  P.mat("E", in_mat(in, "emissions"), "emissions: each token's score for each tag");
  P.value("penalty", num(setting_number(in, "penalty")), "for a forbidden pair of tags");
  P.gap();
  P.gap();
  P.block(R"py(def allowed(prev, tag):
    """BIO: I-X only right after B-X or I-X (so never first)."""
    return not tag.startswith("I-") or prev in ("B-" + tag[2:], "I-" + tag[2:])


start = np.array([[0.0 if allowed("", t) else -penalty for t in tags]])
A = np.array([[0.0 if allowed(p, t) else -penalty for t in tags] for p in tags])  # A[prev, tag]


def score(path):
    return float(start[0, path[0]] + sum(E[t, y] for t, y in enumerate(path))
                 + sum(A[path[t - 1], path[t]] for t in range(1, len(path))))


def forbidden(path):
    return sum(not allowed(tags[path[t - 1]] if t else "", tags[path[t]]) for t in range(len(path)))


own = [int(np.argmax(E[t])) for t in range(len(tokens))]  # each token's own best tag
best = start[0] + E[0]  # Viterbi: the best score of a path ending in each tag
back = []
for t in range(1, len(tokens)):
    total = best[:, None] + A  # (previous tag, tag)
    back.append(np.argmax(total, axis=0))
    best = np.amax(total, axis=0) + E[t]
crf = [int(np.argmax(best))]
for pointers in reversed(back):
    crf.insert(0, int(pointers[crf[0]])))py");
  P.show("transitions", "np.concatenate([start, A])");
  P.show("independent", "np.eye(len(tags))[own]");
  P.show("crf", "np.eye(len(tags))[crf]");
  P.show("path_scores", "[[score(own), score(crf)]]");
  P.show("forbidden", "[[forbidden(own), forbidden(crf)]]");
  return "Tagging: each token's own best tag against a linear-chain CRF (Viterbi).";
}

}  // namespace

// ---------------------------------------------------------------- 4 registration
void add_task_demos(std::vector<DemoEntry>& r) {
  r.push_back({"decode_steps",
               {tokens_param(), labels_param("targets"), labels_param("reference"), labels_param("features"),
                matrix_param("q"), matrix_param("k"), matrix_param("v")},
               check_decode, run_decode, code_decode_steps});
  r.push_back({"retrieval",
               {tokens_param(), labels_param("images"), labels_param("features"), matrix_param("q"),
                matrix_param("regions"), choice_param("pooling", {"attention", "average"}, "attention"),
                number_param("sharpness", 1.0f, 20.0f, false, "5")},
               check_retrieval, run_retrieval, code_retrieval});
  r.push_back({"crf_tagging",
               {tokens_param(), labels_param("tags"), matrix_param("emissions"), number_param("penalty", 0.0f, 10.0f, false, "10")},
               check_crf, run_crf, code_crf_tagging});
}

}  // namespace attn::demo_impl
