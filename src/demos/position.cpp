// position.cpp: demos for curriculum D3 to D5: positions, what heads look at,
// and parallelism.
//
// Sections: 1 positional (D3: the table, layouts, sum / concat), 2 shuffle (D3:
// permutation equivariance), 3 head_patterns (D4), 4 parallelism (D5: operation
// and step counts), 5 the NumPy/PyTorch programs, 6 registration.
#include <cmath>
#include <utility>

#include "attn/attention.h"
#include "attn/multihead.h"
#include "attn/positional.h"
#include "base/text.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

// ---------------------------------------------------------------- 1 positional
std::vector<std::string> pe_labels(Eigen::Index d, PositionalLayout layout) {
  std::vector<std::string> out;
  if (layout == PositionalLayout::interleaved) {
    for (Eigen::Index c = 0; c < d; ++c) out.push_back((c % 2 ? "cos" : "sin") + std::to_string(c / 2));
  } else {
    const Eigen::Index half = d / 2;
    for (Eigen::Index c = 0; c < half; ++c) out.push_back("cos" + std::to_string(c));
    for (Eigen::Index c = 0; c < d - half; ++c) out.push_back("sin" + std::to_string(c));
  }
  return out;
}

void check_positional(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 1, 8, problems);
  need_rows(in, "x", Eigen::Index(in.tokens.size()), "one row per token", problems);
  need_max_size(in, "x", 8, 8, problems);
}

DemoOutputs run_positional(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, d_x)
  const Eigen::Index n = X.rows(), d_x = X.cols();
  PositionalLayout layout = PositionalLayout::interleaved;
  CombineKind combine = CombineKind::sum;
  parse_positional_layout(setting(in, "layout"), &layout);
  parse_combine_kind(setting(in, "combine"), &combine);
  // Sum needs PE as wide as X; concat appends d_pe columns of its own.
  const int d_pe = combine == CombineKind::sum ? int(d_x) : setting_int(in, "d_pe");
  PositionalDesc pd;
  pd.n = int(n);
  pd.d = d_pe;
  pd.base = setting_number(in, "base");
  pd.layout = layout;
  std::string error;
  Mat PE = sinusoidal_encoding(pd, &error);  // (n, d_pe)
  Mat combined = error.empty() ? combine_positional(X, PE, combine, &error) : Mat();
  constexpr int kCurve = 32;  // positions 0..31 for the wave plot
  pd.n = kCurve;
  const Mat table = error.empty() ? sinusoidal_encoding(pd, &error) : Mat();  // (32, d_pe)
  if (!error.empty()) {
    out.error = error;
    return out;
  }
  Mat positions(1, kCurve);  // (1, 32)
  for (int p = 0; p < kCurve; ++p) positions(0, p) = float(p);
  const auto& tok = in.tokens;
  const auto cols = pe_labels(d_pe, layout);
  std::vector<std::string> pos_labels;
  for (Eigen::Index i = 0; i < n; ++i) pos_labels.push_back(std::to_string(i) + " " + tok[size_t(i)]);
  std::vector<std::string> combined_cols = dim_labels(d_x);
  if (combine == CombineKind::concat) combined_cols.insert(combined_cols.end(), cols.begin(), cols.end());
  out.panels.push_back(choice_panel("layout", tr("Column layout of PE", "PE 的列布局"), {"interleaved", "split_halves"},
                                    {tr("interleaved: sin, cos, sin, cos, ...", "交错：sin, cos, sin, cos, ……"), tr("halves: all cos, then all sin", "分半：先全部 cos，再全部 sin")}));
  out.panels.push_back(choice_panel("combine", tr("Combine with the embeddings by", "与嵌入的组合方式"), {"sum", "concat"},
                                    {tr("sum: X + PE", "相加：X + PE"), tr("concat: [X | PE]", "拼接：[X | PE]")}));
  if (combine == CombineKind::concat)
    out.panels.push_back(slider_panel("d_pe", tr("Width of PE (concat)", "PE 的宽度（拼接）"), 2.0f, 8.0f, 1.0f));
  out.panels.push_back(slider_panel("base", tr("Base (10000 in the Transformer)", "底数（Transformer 中为 10000）"), 2.0f, 10000.0f, 0.0f));
  out.panels.push_back(editor_panel("x", tr("Token embeddings X", "词元嵌入 X"), tok, dim_labels(d_x)));
  out.panels.push_back(heatmap_panel("pe", "pe", tr("Position encoding PE (one row per position)", "位置编码 PE（每个位置一行）"), pos_labels, cols, false));
  out.panels.push_back(heatmap_panel("combined", "combined", combine == CombineKind::sum ? tr("X + PE", "X + PE") : tr("[X | PE]", "[X | PE]"),
                                     pos_labels, combined_cols, false));
  out.panels.push_back(lines_panel("waves", "waves", "positions", tr("Each column of PE over positions 0-31", "PE 每一列随位置 0-31 的变化"), cols,
                                   tr("x: position", "横轴：位置")));
  LocalText shapes;
  const std::string line = combine == CombineKind::sum
                               ? "X " + fmt_shape({n, d_x}) + " + PE " + fmt_shape({n, d_pe}) + " = " + fmt_shape({n, d_x})
                               : "[X " + fmt_shape({n, d_x}) + " | PE " + fmt_shape({n, d_pe}) + "] = " + fmt_shape({n, d_x + d_pe});
  add_line(shapes, line, line);
  out.panels.push_back(shapes_panel("shapes", tr("Shapes", "形状"), shapes));
  LocalText t;
  for (int i = 0; i < (d_pe + 1) / 2; ++i) {
    const float omega = std::pow(pd.base, -2.0f * float(i) / float(d_pe));
    const std::string l = "ω" + std::to_string(i) + " = 1 / " + fmt(pd.base, 0) + "^(" + std::to_string(2 * i) + "/" +
                          std::to_string(d_pe) + ") = " + fmt(omega, 4);
    add_line(t, l + ", one turn every " + fmt(6.2831853f / omega, 1) + " positions",
             l + "，每 " + fmt(6.2831853f / omega, 1) + " 个位置转一圈");
  }
  out.panels.push_back(note_panel("frequencies", tr("Frequencies", "频率"), t));
  Mat waves = table.transpose();  // (d_pe, 32)
  out.mats["pe"] = std::move(PE);
  out.mats["combined"] = std::move(combined);
  out.mats["waves"] = std::move(waves);
  out.mats["positions"] = std::move(positions);
  return out;
}

// ---------------------------------------------------------------- 2 shuffle
// Self-attention with Q = K = V = the input (optionally plus position encoding).
// Shuffle the rows of X by a permutation P (kit.h's shuffle_order): without PE the
// output is P Z (the same rows, moved with their tokens); with PE it is not.
// Self-attention output of X combined with PE per `pe` ("none", "sum", "concat").
Mat attend_with_pe(const Mat& X, const std::string& pe, std::string* error) {
  Mat input = X;
  if (pe != "none") {
    PositionalDesc pd;
    pd.n = int(X.rows());
    pd.d = int(X.cols());
    CombineKind kind = CombineKind::sum;
    parse_combine_kind(pe, &kind);
    input = combine_positional(X, sinusoidal_encoding(pd), kind, error);
  }
  AttentionDesc desc;
  desc.score = ScoreKind::scaled_dot;
  AttentionResult r = attention_forward(input, input, input, desc, {});
  if (!r.ok()) *error = r.error;
  return r.output;
}

void check_shuffle(const DemoInputs& in, std::vector<Problem>& problems) {
  need_labels(in.tokens, "tokens", 2, 6, problems);
  need_rows(in, "x", Eigen::Index(in.tokens.size()), "one row per token", problems);
  need_max_size(in, "x", 6, 4, problems);
}

DemoOutputs run_shuffle(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, d)
  const Eigen::Index n = X.rows();
  const std::string& pe = setting(in, "pe");
  const auto p = shuffle_order(setting(in, "shuffle"), n);
  std::string error;
  const Mat Xs = permute_rows(X, p);                  // (n, d) P X
  Mat Z = attend_with_pe(X, pe, &error);              // (n, d_in)
  Mat Zs = error.empty() ? attend_with_pe(Xs, pe, &error) : Mat();  // (n, d_in)
  if (!error.empty()) {
    out.error = error;
    return out;
  }
  Mat expected = permute_rows(Z, p);  // (n, d_in) P Z: what equivariance predicts
  Mat difference = Zs - expected;     // (n, d_in)
  Mat max_difference(1, 1);
  max_difference(0, 0) = difference.cwiseAbs().maxCoeff();
  const auto& tok = in.tokens;
  std::vector<std::string> shuffled;
  for (Eigen::Index i : p) shuffled.push_back(tok[size_t(i)]);
  const auto cols = dim_labels(Z.cols());
  out.panels.push_back(choice_panel("shuffle", tr("Shuffle the input", "打乱输入"), {"none", "reverse", "rotate", "swap"},
                                    {tr("keep the order", "保持原序"), tr("reverse", "倒序"), tr("rotate by one", "循环移动一位"), tr("swap the first two", "交换前两个")}));
  out.panels.push_back(choice_panel("pe", tr("Position encoding", "位置编码"), {"none", "sum", "concat"},
                                    {tr("none", "无"), tr("added: X + PE", "相加：X + PE"), tr("appended: [X | PE]", "拼接：[X | PE]")}));
  out.panels.push_back(editor_panel("x", tr("X in the original order", "原始顺序的 X"), tok, dim_labels(X.cols())));
  out.panels.push_back(heatmap_panel("output", "output", tr("Output for the original order", "原始顺序的输出"), tok, cols, false));
  out.panels.push_back(heatmap_panel("expected", "expected", tr("That output, rows moved like the input", "同一输出，按输入的方式移动各行"), shuffled, cols, false));
  out.panels.push_back(heatmap_panel("shuffled_output", "shuffled_output", tr("Output for the shuffled input", "打乱后输入的输出"), shuffled, cols, false));
  out.panels.push_back(heatmap_panel("difference", "difference", tr("Difference", "差别"), shuffled, cols, false));
  LocalText t;
  const float diff = max_difference(0, 0);
  add_line(t, "Largest difference: " + fmt(diff, 4) + ".", "最大差别：" + fmt(diff, 4) + "。");
  if (diff < 1e-4f)
    add_line(t, "The outputs moved exactly like the inputs: each token gets the same output wherever it stands. Attention alone cannot see word order.",
             "输出与输入完全同样地移动：每个词元无论站在哪里，得到的输出都一样。单靠注意力看不到词序。");
  else
    add_line(t, "The outputs did not just move: with position encoding, the same token at a new position gets a different output, so order now matters.",
             "输出不只是换了位置：有了位置编码，同一个词元换到新位置会得到不同的输出，顺序开始起作用了。");
  out.panels.push_back(note_panel("verdict", tr("Did the output just move?", "输出只是挪了位置吗？"), t));
  out.mats["output"] = std::move(Z);
  out.mats["shuffled_output"] = std::move(Zs);
  out.mats["expected"] = std::move(expected);
  out.mats["difference"] = std::move(difference);
  out.mats["max_difference"] = std::move(max_difference);
  return out;
}

// ---------------------------------------------------------------- 3 head_patterns
// Two hand-set heads of size 2 over a sentence: X holds two word features and a
// position given as (cos, sin) of an angle. Head 1 uses the word features (e.g.
// a pronoun looking for its noun); head 2 uses the position columns, where a
// rotation in W_Q makes each word look one place to the left. Values are X itself.
void check_head_patterns(const DemoInputs& in, std::vector<Problem>& problems) {
  const auto n = Eigen::Index(in.tokens.size());
  need_labels(in.tokens, "tokens", 3, 10, problems);
  need_labels(setting_labels(in, "features"), "features", 4, 4, problems);
  need_rows(in, "x", n, "one row per token", problems);
  need_cols(in, "x", 4, "two word features and a (cos, sin) position", problems);
  for (const char* w : {"w_q", "w_k"}) {
    need_rows(in, w, 4, "one row per column of 'x'", problems);
    need_cols(in, w, 4, "two heads of size 2", problems);
  }
}

DemoOutputs run_head_patterns(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& X = in.mats.at("x");  // (n, 4)
  MultiHeadDesc desc;
  desc.heads = 2;
  desc.score = ScoreKind::dot;
  MultiHeadParams p;
  p.W_Q = in.mats.at("w_q");
  p.W_K = in.mats.at("w_k");
  p.W_V = identity(4);
  MultiHeadResult r = self_attention_forward(X, desc, p);
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  const auto& tok = in.tokens;
  const auto features = setting_labels(in, "features");
  const Eigen::Index n = X.rows();
  out.mats["weights_1"] = r.weights[0];
  out.mats["weights_2"] = r.weights[1];
  // Path length between positions at distance 1..n-1: attention links any two
  // positions in one step; an RNN passes the information through every state between.
  Mat distance(1, n - 1), path(2, n - 1);  // (1, n-1), (2, n-1) rows: attention, RNN
  for (Eigen::Index k = 1; k < n; ++k) {
    distance(0, k - 1) = float(k);
    path(0, k - 1) = 1.0f;
    path(1, k - 1) = float(k);
  }
  out.mats["distance"] = distance;
  out.mats["path"] = path;
  out.panels.push_back(editor_panel("x", tr("X: word features and position", "X：词的特征和位置"), tok, features));
  out.panels.push_back(editor_panel("w_q", tr("W_Q (columns 1-2: head 1, 3-4: head 2)", "W_Q（第 1-2 列：头 1；第 3-4 列：头 2）"), features, dim_labels(4)));
  out.panels.push_back(editor_panel("w_k", tr("W_K (same split)", "W_K（同样划分）"), features, dim_labels(4)));
  out.panels.push_back(arrows_panel("arrows_1", "weights_1", tr("Head 1", "头 1"), tok, tok));
  out.panels.push_back(arrows_panel("arrows_2", "weights_2", tr("Head 2", "头 2"), tok, tok));
  out.panels.push_back(heatmap_panel("weights_1", "weights_1", tr("Head 1 weights", "头 1 的权重"), tok, tok, true));
  out.panels.push_back(heatmap_panel("weights_2", "weights_2", tr("Head 2 weights", "头 2 的权重"), tok, tok, true));
  out.panels.push_back(lines_panel("path", "path", "distance", tr("Steps between two positions (counted, not timed)", "两个位置之间的步数（计数，不是计时）"),
                                   {"attention", "RNN"}, tr("x: distance in tokens", "横轴：相隔的词元数")));
  LocalText t;
  for (int h = 0; h < 2; ++h) {
    const Mat& w = r.weights[size_t(h)];
    std::string links;
    int count = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index j = row_argmax(w, i);
      if (w(i, j) <= 0.5f) continue;
      if (count++ < 4) links += std::string(count > 1 ? ", " : "") + tok[size_t(i)] + " → " + tok[size_t(j)] + " " + fmt(w(i, j));
    }
    const std::string more = std::to_string(count - 4);
    const std::string head = std::to_string(h + 1);
    add_line(t, "Head " + head + ": " + std::to_string(count) + " of " + std::to_string(n) + " words put more than half their weight on one word" +
                    (count ? ": " + links : "") + (count > 4 ? " (and " + more + " more)" : "") + ".",
             "头 " + head + "：" + std::to_string(count) + " 个词（共 " + std::to_string(n) + " 个）把一半以上的权重给了某一个词" +
                 (count ? "：" + links : "") + (count > 4 ? "（另有 " + more + " 个）" : "") + "。");
  }
  // The longest strong link of head 1, to compare path lengths.
  Eigen::Index bi = 0, bj = 0;
  float best = 0.0f;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (i != j && r.weights[0](i, j) > 0.5f && std::abs(i - j) > std::abs(bi - bj)) {
        bi = i;
        bj = j;
        best = r.weights[0](i, j);
      }
  if (best > 0.0f) {
    const std::string dist = std::to_string(std::abs(bi - bj));
    add_line(t, tok[size_t(bi)] + " → " + tok[size_t(bj)] + " spans " + dist + " positions: one attention step, but " + dist + " RNN steps.",
             tok[size_t(bi)] + " → " + tok[size_t(bj)] + " 相隔 " + dist + " 个位置：注意力一步到达，RNN 却要走 " + dist + " 步。");
  }
  out.panels.push_back(note_panel("links", tr("What the heads found", "各个头找到了什么"), t));
  out.mats["output"] = std::move(r.output);
  return out;
}

// ---------------------------------------------------------------- 4 parallelism
// Counts, not timings. An RNN layer over n tokens of width d does n steps, each
// needing the previous one (about 2 d^2 multiply-adds per step). Self-attention
// does three phases whatever n is -- projections (3 n d^2), scores (n^2 d), mix
// (n^2 d) -- and inside a phase everything is independent. With P parallel lanes
// a phase of W independent multiply-adds takes ceil(W / P) rounds.
struct Counts {
  double steps[2];   // sequential steps: RNN, attention
  double madds[2];   // multiply-adds
  double rounds[2];  // rounds on P lanes
};

Counts count_ops(double n, double d, double P) {
  Counts c{};
  c.steps[0] = n;
  c.steps[1] = 3;
  c.madds[0] = n * 2 * d * d;
  c.madds[1] = 3 * n * d * d + 2 * n * n * d;
  c.rounds[0] = n * std::ceil(2 * d * d / P);
  c.rounds[1] = std::ceil(3 * n * d * d / P) + 2 * std::ceil(n * n * d / P);
  return c;
}

std::string big(double v) {
  char buf[48];
  if (v < 1e6) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

void check_parallelism(const DemoInputs&, std::vector<Problem>&) {}

DemoOutputs run_parallelism(const DemoInputs& in) {
  DemoOutputs out;
  const double n = setting_int(in, "n"), d = setting_int(in, "d");
  const double P = std::pow(2.0, setting_int(in, "lanes_log2"));
  constexpr int kPoints = 11;  // n = 1, 2, 4, ..., 1024
  Mat axis(1, kPoints), steps(2, kPoints), madds(2, kPoints), rounds(2, kPoints);
  for (int k = 0; k < kPoints; ++k) {
    const Counts c = count_ops(std::pow(2.0, k), d, P);
    axis(0, k) = float(k);  // log2 n
    for (int s = 0; s < 2; ++s) {
      steps(s, k) = float(std::log10(c.steps[s]));
      madds(s, k) = float(std::log10(c.madds[s]));
      rounds(s, k) = float(std::log10(c.rounds[s]));
    }
  }
  const Counts now = count_ops(n, d, P);
  Mat table(3, 2);  // (3, 2) log10 of steps, multiply-adds, rounds; cols RNN, attention
  for (int s = 0; s < 2; ++s) {
    table(0, s) = float(std::log10(now.steps[s]));
    table(1, s) = float(std::log10(now.madds[s]));
    table(2, s) = float(std::log10(now.rounds[s]));
  }
  const std::vector<std::string> series = {"RNN", "attention"};
  const LocalText axes = tr("x: log2 n (0 = 1 token, 10 = 1024); y: log10 of the count", "横轴：log2 n（0 表示 1 个词元，10 表示 1024）；纵轴：计数的 log10");
  out.panels.push_back(slider_panel("n", tr("Sequence length n", "序列长度 n"), 1.0f, 1024.0f, 1.0f));
  out.panels.push_back(slider_panel("d", tr("Width d", "宽度 d"), 1.0f, 512.0f, 1.0f));
  out.panels.push_back(slider_panel("lanes_log2", tr("Parallel lanes P = 2^k (SIMD lanes, GPU cores)", "并行通道 P = 2^k（SIMD 通道、GPU 核心）"), 0.0f, 16.0f, 1.0f));
  out.panels.push_back(heatmap_panel("now", "now", tr("log10 of the counts at this n, d, P", "当前 n、d、P 下各计数的 log10"),
                                     {"steps", "multiply-adds", "rounds"}, series, false));
  out.panels.push_back(lines_panel("steps", "steps", "axis", tr("Sequential steps (each waits for the one before)", "顺序步数（每一步都要等上一步）"), series, axes));
  out.panels.push_back(lines_panel("madds", "madds", "axis", tr("Total multiply-adds (work)", "乘加总数（工作量）"), series, axes));
  out.panels.push_back(lines_panel("rounds", "rounds", "axis", tr("Rounds on P lanes (estimated from counts)", "在 P 个通道上的轮数（由计数估算）"), series, axes));
  LocalText shapes;
  add_line(shapes, "RNN: h_t = tanh(x_t W_x + h_(t-1) W_h): " + big(n) + " steps of " + fmt_shape({1, Eigen::Index(d)}) + " x " + fmt_shape({Eigen::Index(d), Eigen::Index(d)}),
           "RNN: h_t = tanh(x_t W_x + h_(t-1) W_h): " + big(n) + " 步，每步 " + fmt_shape({1, Eigen::Index(d)}) + " x " + fmt_shape({Eigen::Index(d), Eigen::Index(d)}));
  add_line(shapes, "attention: Q K^T = " + fmt_shape({Eigen::Index(n), Eigen::Index(d)}) + " x " + fmt_shape({Eigen::Index(d), Eigen::Index(n)}) + ": " + big(n * n) + " independent dot products",
           "注意力: Q K^T = " + fmt_shape({Eigen::Index(n), Eigen::Index(d)}) + " x " + fmt_shape({Eigen::Index(d), Eigen::Index(n)}) + "：" + big(n * n) + " 个互不依赖的点积");
  out.panels.push_back(shapes_panel("shapes", tr("The work", "工作量"), shapes));
  LocalText t;
  add_line(t, "These are operation counts computed from n, d and P, not measured times.",
           "这些是由 n、d 和 P 算出的运算次数，不是实测时间。");
  add_line(t, "RNN: " + big(now.steps[0]) + " sequential steps, " + big(now.madds[0]) + " multiply-adds, " + big(now.rounds[0]) + " rounds on " + big(P) + " lanes.",
           "RNN：" + big(now.steps[0]) + " 个顺序步，" + big(now.madds[0]) + " 次乘加，在 " + big(P) + " 个通道上需要 " + big(now.rounds[0]) + " 轮。");
  add_line(t, "Attention: " + big(now.steps[1]) + " sequential phases, " + big(now.madds[1]) + " multiply-adds, " + big(now.rounds[1]) + " rounds.",
           "注意力：" + big(now.steps[1]) + " 个顺序阶段，" + big(now.madds[1]) + " 次乘加，需要 " + big(now.rounds[1]) + " 轮。");
  add_line(t, "With few lanes the total work decides; with many lanes the chain of steps that must wait for each other decides, and that chain is n long for the RNN.",
           "通道少时，总工作量决定快慢；通道多时，决定快慢的是必须互相等待的那条步骤链，而 RNN 的这条链长度为 n。");
  out.panels.push_back(note_panel("summary", tr("Counts at this setting", "当前设置下的计数"), t));
  out.mats["axis"] = std::move(axis);
  out.mats["steps"] = std::move(steps);
  out.mats["madds"] = std::move(madds);
  out.mats["rounds"] = std::move(rounds);
  out.mats["now"] = std::move(table);
  return out;
}

// ---------------------------------------------------------------- 5 the NumPy/PyTorch programs

// The sinusoidal table as a function of positions, in the layout asked for.
void encoding_def(Py& P, bool split_halves) {
  P.block(R"py(def encoding(positions, d_pe, base):
    """Sinusoidal position encoding: pair i turns at omega_i = base^(-2i / d_pe)."""
    omega = base ** (-2.0 * np.arange((d_pe + 1) // 2) / d_pe)
    angle = positions[:, None] * omega[None, :]
    PE = np.zeros((len(positions), d_pe)))py");
  if (split_halves) {
    P("    PE[:, :d_pe // 2] = np.cos(angle[:, :d_pe // 2])  # all the cosines, then all the sines");
    P("    PE[:, d_pe // 2:] = np.sin(angle)");
  } else {
    P("    PE[:, 0::2] = np.sin(angle)  # sin, cos, sin, cos, ...");
    P("    PE[:, 1::2] = np.cos(angle[:, :d_pe // 2])");
  }
  P("    return PE");
  P.gap();
  P.gap();
}

std::string code_positional(Py& P, const DemoInputs& in) {
  const bool sum = setting(in, "combine") == "sum";
  const Mat& X = in_mat(in, "x");
  P.mat("X", X, rows_note("token embeddings", in.tokens));
  P.value("d_pe", sum ? "X.shape[1]" : std::to_string(setting_int(in, "d_pe")),
          sum ? "a sum needs PE as wide as X" : "the width of PE");
  P.value("base", num(setting_number(in, "base")));
  P.gap();
  P.gap();
  encoding_def(P, setting(in, "layout") == "split_halves");
  P("pe = encoding(np.arange(X.shape[0], dtype=float), d_pe, base)");
  P(sum ? "combined = X + pe" : "combined = np.concatenate([X, pe], axis=1)");
  P("positions = np.arange(32, dtype=float)");
  P("waves = encoding(positions, d_pe, base).T  # each column of PE over positions 0-31");
  for (const char* o : {"pe", "combined", "waves"}) P.show(o);
  P.show("positions", "positions.reshape(1, -1)");
  return "Sinusoidal position encoding, and how it joins the embeddings.";
}

std::string code_shuffle(Py& P, const DemoInputs& in) {
  const Mat& X = in_mat(in, "x");
  const std::string kind = setting(in, "shuffle"), pe = setting(in, "pe");
  const Eigen::Index n = X.rows();
  std::vector<std::string> order;
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index p = i;
    if (kind == "reverse") p = n - 1 - i;
    else if (kind == "rotate") p = (i + 1) % n;
    else if (kind == "swap" && i < 2) p = 1 - i;
    order.push_back(std::to_string(p));
  }
  P.mat("X", X, rows_note("inputs in the original order", in.tokens));
  P.value("order", "[" + join(order, ", ") + "]", "shuffle (" + kind + "): new row i is old row order[i]");
  P.gap();
  P.gap();
  if (pe != "none") encoding_def(P, false);
  P("def attend(Z):");
  P("    \"\"\"Self-attention with Q = K = V = Z (scaled dot product).\"\"\"");
  if (pe == "sum") P("    Z = Z + encoding(np.arange(Z.shape[0], dtype=float), Z.shape[1], 10000.0)  # position encoding added");
  if (pe == "concat")
    P("    Z = np.concatenate([Z, encoding(np.arange(Z.shape[0], dtype=float), Z.shape[1], 10000.0)], axis=1)  # appended");
  P.block(R"py(    return softmax(Z @ Z.T / Z.shape[1] ** 0.5) @ Z


output = attend(X)
shuffled_output = attend(X[order])
expected = output[order]  # the same rows, moved like the input
difference = shuffled_output - expected)py");
  for (const char* o : {"output", "shuffled_output", "expected", "difference"}) P.show(o);
  P.show("max_difference", "[[float(abs(difference).max())]]");
  return "Shuffle the input of self-attention: do the outputs just move?";
}

std::string code_head_patterns(Py& P, const DemoInputs& in) {
  P.mat("X", in_mat(in, "x"), rows_note("one row per word (" + join(setting_labels(in, "features"), ", ") + ")", in.tokens));
  P.mat("W_Q", in_mat(in, "w_q"), "columns 1-2: head 1, 3-4: head 2");
  P.mat("W_K", in_mat(in, "w_k"));
  P.gap();
  P.block(R"py(Q, K = X @ W_Q, X @ W_K
weights_1 = softmax(Q[:, 0:2] @ K[:, 0:2].T)  # head 1
weights_2 = softmax(Q[:, 2:4] @ K[:, 2:4].T)  # head 2
output = np.concatenate([weights_1 @ X[:, 0:2], weights_2 @ X[:, 2:4]], axis=1)  # values: X itself
distance = np.arange(1.0, X.shape[0]).reshape(1, -1)  # positions apart
path = np.concatenate([np.ones(distance.shape), distance])  # steps: attention 1, an RNN one per position)py");
  for (const char* o : {"weights_1", "weights_2", "output", "distance", "path"}) P.show(o);
  return "Two hand-set heads, each finding its own pattern.";
}

std::string code_parallelism(Py& P, const DemoInputs& in) {
  P.import("math");
  P.value("n", std::to_string(setting_int(in, "n")), "tokens");
  P.value("d", std::to_string(setting_int(in, "d")), "width");
  P.value("P", "2 ** " + std::to_string(setting_int(in, "lanes_log2")), "parallel lanes");
  P.gap();
  P.gap();
  P.block(R"py(def counts(n):
    """log10 of the sequential steps, multiply-adds and rounds on P lanes: columns RNN, attention."""
    steps = [n, 3]
    madds = [n * 2 * d * d, 3 * n * d * d + 2 * n * n * d]
    rounds = [n * math.ceil(2 * d * d / P), math.ceil(3 * n * d * d / P) + 2 * math.ceil(n * n * d / P)]
    return np.log10(np.array([steps, madds, rounds], dtype=float))


now = counts(n)
curves = np.stack([counts(2 ** k) for k in range(11)])  # n = 1, 2, 4, ..., 1024
axis = np.arange(11.0).reshape(1, -1)  # log2 n)py");
  P.show("now");
  P.show("axis");
  P.show("steps", "curves[:, 0, :].T");
  P.show("madds", "curves[:, 1, :].T");
  P.show("rounds", "curves[:, 2, :].T");
  return "An RNN against self-attention: operation counts, not timings.";
}

}  // namespace

// ---------------------------------------------------------------- 6 registration
void add_position_demos(std::vector<DemoEntry>& r) {
  r.push_back({"positional",
               {tokens_param(), matrix_param("x"), choice_param("layout", {"interleaved", "split_halves"}, "interleaved"),
                choice_param("combine", {"sum", "concat"}, "sum"), number_param("d_pe", 2, 8, true, "4"),
                number_param("base", 2, 10000, false, "10000")},
               check_positional, run_positional, code_positional});
  r.push_back({"shuffle",
               {tokens_param(), matrix_param("x"), choice_param("shuffle", {"none", "reverse", "rotate", "swap"}, "reverse"),
                choice_param("pe", {"none", "sum", "concat"}, "none")},
               check_shuffle, run_shuffle, code_shuffle});
  r.push_back({"head_patterns",
               {tokens_param(), labels_param("features", "f1 | f2 | f3 | f4"), matrix_param("x"), matrix_param("w_q"),
                matrix_param("w_k")},
               check_head_patterns, run_head_patterns, code_head_patterns});
  r.push_back({"parallelism",
               {number_param("n", 1, 1024, true, "64"), number_param("d", 1, 512, true, "64"),
                number_param("lanes_log2", 0, 16, true, "8")},
               check_parallelism, run_parallelism, code_parallelism});
}

}  // namespace attn::demo_impl
