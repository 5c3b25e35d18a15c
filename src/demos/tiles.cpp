// tiles.cpp: the demo for curriculum I5, FlashAttention's tiles, by hand.
//
//   online_softmax  one query row against n keys and values, read in tiles of b
//                   keys (attn/online_softmax.h): after each tile the running
//                   maximum m, the running sum l, the rescale factor
//                   exp(m_old - m_new) and the running output; then the tiled
//                   output against the full softmax over the same keys, and how
//                   many scores each holds at once. A slider reads the keys tile
//                   by tile.
//
// Sections: 1 online_softmax, 2 the NumPy/PyTorch program, 3 registration.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/online_softmax.h"
#include "demos/code_writer.h"
#include "demos/kit.h"

namespace attn::demo_impl {
namespace {

constexpr int kMaxKeys = 32, kMaxTile = 8;
constexpr float kExpLimit = 88.72f;  // exp(x) is inf in float32 above about 88.72 (ln of FLT_MAX)

// ---------------------------------------------------------------- 1 online_softmax
void check_online_softmax(const DemoInputs& in, std::vector<Problem>& problems) {
  const Mat &q = in.mats.at("q"), &K = in.mats.at("k");
  const Eigen::Index n = K.rows();
  need_rows(in, "q", 1, "one query row", problems);
  need_max_size(in, "q", 1, 8, problems);
  need_cols(in, "k", q.cols(), "as many as 'q'", problems);
  if (n < 2 || n > kMaxKeys)
    problems.push_back({"k", "'k' needs 2 to " + std::to_string(kMaxKeys) + " keys, not " + std::to_string(n)});
  need_rows(in, "v", n, "one value per key", problems);
  need_max_size(in, "v", kMaxKeys, 4, problems);
  if (setting_int(in, "keys_done") > n)
    problems.push_back({"keys_done", "'keys_done' must be at most the number of keys (" + std::to_string(n) + ")"});
}

// Tiles read for `keys_done` keys: every tile that holds one of them.
int tiles_for(int keys_done, int tile) { return (keys_done + tile - 1) / tile; }

// Three significant digits ("0.492", "1.2e-05"): factors and differences that
// two decimals would print as 0.00.
std::string sig(float v) {
  if (v == 0.0f) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", double(v));
  return buf;
}

// "k5–k8" (or "k5" for a tile of one key).
std::string key_range(int first, int count) {
  const std::string a = "k" + std::to_string(first + 1);
  return count == 1 ? a : a + "–k" + std::to_string(first + count);
}

DemoOutputs run_online_softmax(const DemoInputs& in) {
  DemoOutputs out;
  const Mat &q = in.mats.at("q"), &K = in.mats.at("k"), &V = in.mats.at("v");
  const int n = int(K.rows()), d = int(q.cols()), d_v = int(V.cols());
  const int tile = setting_int(in, "tile"), keys_done = setting_int(in, "keys_done");
  const int tiles = tiles_for(keys_done, tile);
  const float scale = 1.0f / std::sqrt(float(d));
  const OnlineSoftmaxRun run = online_softmax_attention(q, K, V, tile, scale, tiles);
  const std::vector<std::string> keys = dim_labels(n, "k"), values = dim_labels(n, "v");
  const std::vector<std::string> dims = dim_labels(d), out_dims = dim_labels(d_v);

  Mat scores(1, n);  // (1, n) every score, for the learner's eyes only
  for (int j = 0; j < n; ++j) scores(0, j) = scaled_dot_score(q, K, j, scale);

  out.panels.push_back(slider_panel("keys_done", tr("Keys read so far (− and + read one tile more or less)", "已读入的键（− 和 + 每次多读或少读一块）"),
                                    0.0f, float(n), float(tile)));
  out.panels.push_back(slider_panel("tile", tr("Tile size b: keys per tile", "块大小 b：每块的键数"), 1.0f, float(kMaxTile), 1.0f));
  out.panels.push_back(editor_panel("q", tr("Query q", "查询 q"), {"q"}, dims));
  out.panels.push_back(editor_panel("k", tr("Keys K", "键 K"), keys, dims));
  out.panels.push_back(editor_panel("v", tr("Values V", "值 V"), values, out_dims));
  out.panels.push_back(heatmap_panel("scores", "scores", tr("All n scores s_j = q · k_j / √d_k (shown to you; the tiled pass never holds them together)",
                                                            "全部 n 个分数 s_j = q · k_j / √d_k（只是给你看；分块计算从不同时保存它们）"),
                                     {"s"}, keys, false));

  LocalText update, check;
  const LocalText update_title = tr("The last tile's update", "最后一块的更新");
  if (run.tiles.empty()) {
    add_line(update, "Nothing read yet: m = −∞, l = 0, acc = 0. Move the slider to read the first tile.",
             "还没有读入任何键：m = −∞，l = 0，acc = 0。拖动滑块读入第一块。");
  } else {
    const OnlineSoftmaxTile& last = run.tiles.back();
    const int t = int(run.tiles.size()), r = run.keys_read;
    // The tile just read: its scores and p = exp(s - m_new).
    Mat current(2, last.count);  // (2, count)
    current.row(0) = last.scores;
    current.row(1) = last.p;
    const std::vector<std::string> tile_keys(keys.begin() + last.first, keys.begin() + last.first + last.count);
    // After each tile: m, l, rescale, then the running output o = acc / l.
    Mat running(t, 3 + d_v);  // (tiles read, 3 + d_v)
    std::vector<std::string> rows;
    for (int i = 0; i < t; ++i) {
      const OnlineSoftmaxTile& s = run.tiles[size_t(i)];
      running(i, 0) = s.m_new;
      running(i, 1) = s.l;
      running(i, 2) = s.rescale;
      running.block(i, 3, 1, d_v) = s.out;
      rows.push_back("tile " + std::to_string(i + 1));
    }
    std::vector<std::string> cols = {"m", "l", "c"};  // short: a heatmap's column label fits its cell
    for (const auto& c : out_dims) cols.push_back("o " + c);
    // The naive reference over the same keys: every score at once.
    const Mat full = full_softmax_attention(q, K, V, scale, r);  // (1, d_v)
    Mat compare(2, d_v);  // (2, d_v)
    compare.row(0) = run.out;
    compare.row(1) = full;
    const float difference = (run.out - full).cwiseAbs().maxCoeff();

    Panel p = heatmap_panel("current", "current",
                            tr("Tile " + std::to_string(t) + " (" + key_range(last.first, last.count) +
                                   "): its scores, the only ones held now, and p = exp(s − m_new)",
                               "第 " + std::to_string(t) + " 块（" + key_range(last.first, last.count) +
                                   "）：它的分数（此刻只保存这些）和 p = exp(s − m_new)"),
                            {"s", "p"}, tile_keys, false);
    out.panels.push_back(std::move(p));
    p = heatmap_panel("running", "running",
                      tr("After each tile: running maximum m, running sum l, rescale factor c = exp(m_old − m_new), output o = acc / l",
                         "每块之后：当前最大值 m、累计和 l、缩放因子 c = exp(m_old − m_new)、输出 o = acc / l"),
                      rows, cols, false);
    for (int i = 0; i < t; ++i) p.label_text[rows[size_t(i)]] = tr(rows[size_t(i)], "第 " + std::to_string(i + 1) + " 块");
    out.panels.push_back(std::move(p));

    // The last tile's update written out.
    const std::string ts = std::to_string(t), range = key_range(last.first, last.count);
    const std::string m_old = t == 1 ? "−∞" : fmt(last.m_old);
    float p_sum = 0.0f;
    for (Eigen::Index j = 0; j < last.p.cols(); ++j) p_sum += last.p(0, j);
    const float l_old = t == 1 ? 0.0f : run.tiles[size_t(t - 2)].l;
    const std::string m_line = "m = max(" + m_old + ", " + fmt(last.scores.maxCoeff()) + ") = " + fmt(last.m_new);
    const std::string c_line = "c = exp(m_old − m_new) = exp(" + m_old + " − " + fmt(last.m_new) + ") = " + sig(last.rescale);
    const std::string l_line = "l = " + sig(last.rescale) + " × " + fmt(l_old) + " + " + fmt(p_sum) + " = " + fmt(last.l);
    const std::string acc_line = "acc = " + sig(last.rescale) + " × acc + Σ p_j v_j = " + fmt_row(last.acc, 0);
    const std::string o_line = "o = acc / l = " + fmt_row(last.out, 0);
    add_line(update, "Tile " + ts + " reads " + range + ".", "第 " + ts + " 块读入 " + range + "。");
    add_line(update, m_line, m_line);
    add_line(update, t == 1 ? c_line + " (nothing held yet)" : last.rescale == 1.0f ? c_line + " (the maximum did not move)" : c_line,
             t == 1 ? c_line + "（之前什么也没有）" : last.rescale == 1.0f ? c_line + "（最大值没有变）" : c_line);
    add_line(update, l_line, l_line);
    add_line(update, acc_line, acc_line);
    add_line(update, o_line, o_line);

    out.panels.push_back(note_panel("update", update_title, update));
    p = heatmap_panel("compare", "compare",
                      tr("Output over k1–k" + std::to_string(r) + ": tiled, and the full softmax of all " + std::to_string(r) + " scores at once",
                         "k1–k" + std::to_string(r) + " 上的输出：分块计算的，以及把 " + std::to_string(r) + " 个分数一次算完的完整 softmax"),
                      {"tiled", "full softmax"}, out_dims, false);
    p.label_text["tiled"] = tr("tiled", "分块");
    p.label_text["full softmax"] = tr("full softmax", "完整 softmax");
    out.panels.push_back(std::move(p));
    const bool same = difference == 0.0f;
    add_line(check, "Largest |tiled − full softmax| over k1–k" + std::to_string(r) + ": " + sig(difference) +
                        (same ? ", the very same float32 numbers." : "."),
             "在 k1–k" + std::to_string(r) + " 上，|分块 − 完整 softmax| 的最大值：" + sig(difference) +
                 (same ? "，两者是完全相同的 float32 数。" : "。"));
    add_line(check,
             "Scores held at once: " + std::to_string(run.scores_held) + " (one tile). The full softmax of this row holds " +
                 std::to_string(n) + "; for all " + std::to_string(n) + " rows of self-attention, " + std::to_string(n) +
                 " × " + std::to_string(n) + " = " + std::to_string(n * n) + ".",
             "同时保存的分数：" + std::to_string(run.scores_held) + " 个（一块）。这一行的完整 softmax 要保存 " +
                 std::to_string(n) + " 个；自注意力的全部 " + std::to_string(n) + " 行要保存 " + std::to_string(n) + " × " +
                 std::to_string(n) + " = " + std::to_string(n * n) + " 个。");
    const float top = scores.leftCols(r).maxCoeff();
    if (top > kExpLimit)
      add_line(check,
               "The largest score, " + fmt(top, 1) + ", is past 88.7: a plain exp(s) would be inf in float32. Every exp here is of s − m ≤ 0.",
               "最大的分数 " + fmt(top, 1) + " 超过了 88.7：直接算 exp(s) 在 float32 里会得到 inf。这里每个 exp 的参数都是 s − m ≤ 0。");

    out.mats["current"] = std::move(current);
    out.mats["running"] = std::move(running);
    out.mats["compare"] = std::move(compare);
    out.mats["max_difference"] = Mat::Constant(1, 1, difference);
  }
  if (run.tiles.empty()) out.panels.push_back(note_panel("update", update_title, update));
  else out.panels.push_back(note_panel("check", tr("Against the full softmax, and memory", "与完整 softmax 对比，以及内存"), check));
  out.mats["scores"] = std::move(scores);
  Mat memory(1, 3);  // (1, 3) scores held at once: tiled, the full softmax of one row, of all n rows
  memory << float(std::min(tile, n)), float(n), float(n) * float(n);
  out.mats["memory"] = std::move(memory);
  return out;
}

// ---------------------------------------------------------------- 2 the NumPy/PyTorch program
std::string code_online_softmax(Py& P, const DemoInputs& in) {
  const int n = int(in_mat(in, "k").rows()), tile = setting_int(in, "tile"), keys_done = setting_int(in, "keys_done");
  const int tiles = tiles_for(keys_done, tile);
  P.import("math");
  P.mat("q", in_mat(in, "q"), "the query (1, d)");
  P.mat("K", in_mat(in, "k"), "the keys k1..k" + std::to_string(n) + " (n, d)");
  P.mat("V", in_mat(in, "v"), "their values (n, d_v)");
  P.value("tile", std::to_string(tile), "b: keys per tile");
  P.value("keys_done", std::to_string(keys_done), "keys read so far");
  P.gap();
  P.block(R"py(n = K.shape[0]
scale = 1.0 / math.sqrt(q.shape[1])
scores = q @ K.T * scale  # (1, n) all at once, only to look at
tiles = (keys_done + tile - 1) // tile  # every tile that holds a key read

# The online softmax: per tile, one buffer of at most `tile` scores, and m, l, acc.
m, l = -math.inf, 0.0
acc = np.zeros((1, V.shape[1]))  # the unnormalised output
running = []
for t in range(tiles):
    a, b = t * tile, min((t + 1) * tile, n)
    s = q @ K[a:b].T * scale  # (1, b - a): this tile's scores
    m_new = max(m, float(s.max()))  # the running maximum
    c = math.exp(m - m_new)  # rescales what was summed against the old maximum (0 on the first tile)
    p = np.exp(s - m_new)  # each <= 1: no overflow
    l = c * l + float(p.sum())  # the running sum
    acc = c * acc + p @ V[a:b]
    m = m_new
    running.append([m, l, c] + (acc / l)[0].tolist())
memory = [[min(tile, n), n, n * n]]  # scores held at once: tiled, one full row, all n rows)py");
  P.show("scores");
  P.show("memory");
  if (tiles > 0) {
    P.block(R"py(
# The naive reference: the full softmax over the same keys, every score at once.
r = min(tiles * tile, n)
full = softmax(q @ K[:r].T * scale) @ V[:r]
o = acc / l)py");
    P.show("current", "np.concatenate([s, p])");
    P.show("running");
    P.show("compare", "np.concatenate([o, full])");
    P.show("max_difference", "[[float(np.abs(o - full).max())]]");
  }
  return "FlashAttention's online softmax by hand: one query row, the keys read tile by tile.";
}

}  // namespace

// ---------------------------------------------------------------- 3 registration
void add_tile_demos(std::vector<DemoEntry>& r) {
  r.push_back({"online_softmax",
               {matrix_param("q"), matrix_param("k"), matrix_param("v"), number_param("tile", 1, kMaxTile, true, "4"),
                number_param("keys_done", 0, kMaxKeys, true, "0")},
               check_online_softmax, run_online_softmax, code_online_softmax});
}

}  // namespace attn::demo_impl
