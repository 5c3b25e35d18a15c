// code_export.cpp: the hand-set demos as NumPy and PyTorch programs (code_export.h).
//
// Every program is written once, in NumPy's spelling, through a small emitter (Py)
// that turns each line into PyTorch's when asked: np.array -> torch.tensor,
// axis= -> dim=, softmax(x) -> torch.softmax(x, dim=-1), and so on. The matrices,
// labels and drawn numbers are written as data. The PyTorch programs compute in
// float64 (torch.set_default_dtype), like NumPy.
//
// Sections: 1 the emitter, 2 part A demos, 3 part B demos, 4 part D demos and the
// block, 5 the task demos, 6 the registry and public API.
#include "lab/code_export.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "attn/attention.h"
#include "attn/transformer.h"
#include "base/rng.h"
#include "base/text.h"
#include "lab/demos_internal.h"

namespace attn {
namespace {

using demo_impl::setting;
using demo_impl::setting_int;
using demo_impl::setting_labels;
using demo_impl::setting_number;

// ---------------------------------------------------------------- 1 the emitter
// The shortest text that reads back as the same float, always with a '.' or an
// exponent (so Python and PyTorch take it as a float).
std::string num(float v) {
  if (v == 0.0f) return "0.0";
  char buf[32];
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, double(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string py_list(const std::vector<std::string>& labels) {
  std::vector<std::string> quoted;
  for (const auto& l : labels) quoted.push_back(py_string(l));
  return "[" + join(quoted, ", ") + "]";
}

std::string num_list(const std::vector<float>& v) {
  std::vector<std::string> s;
  for (float x : v) s.push_back(num(x));
  return "[" + join(s, ", ") + "]";
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Replaces `from` by `to`; a `from` that starts with a letter only where no name
// runs into it from the left ("np." but not "tnp.").
std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  const bool word = std::isalpha(static_cast<unsigned char>(from[0]));
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, from.size(), from) == 0 && (!word || i == 0 || !word_char(s[i - 1]))) {
      out += to;
      i += from.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

// softmax(x) -> torch.softmax(x, dim=-1), for every call (not the NumPy definition).
std::string torch_softmax(const std::string& s) {
  std::string out;
  size_t i = 0;
  const std::string call = "softmax(";
  while (i < s.size()) {
    const bool at_call = s.compare(i, call.size(), call) == 0 && (i == 0 || !word_char(s[i - 1]));
    if (!at_call) {
      out += s[i++];
      continue;
    }
    size_t j = i + call.size();
    int depth = 1;
    for (; j < s.size() && depth > 0; ++j) depth += s[j] == '(' ? 1 : s[j] == ')' ? -1 : 0;
    // s[i + call.size(), j - 1) is the argument; s[j - 1] its closing parenthesis.
    out += "torch.softmax(" + torch_softmax(s.substr(i + call.size(), j - 1 - i - call.size())) + ", dim=-1)";
    i = j;
  }
  return out;
}

std::string to_torch(std::string s) {
  static const char* const swaps[][2] = {
      {"np.asarray(", "torch.as_tensor("}, {"np.array(", "torch.tensor("}, {"np.concatenate(", "torch.cat("},
      {"np.clip(", "torch.clamp("},        {"np.", "torch."},              {"axis=", "dim="},
      {"keepdims=", "keepdim="},           {".copy()", ".clone()"}};
  for (const auto& sw : swaps) s = replace_all(s, sw[0], sw[1]);
  return torch_softmax(s);
}

class Py {
 public:
  explicit Py(CodeLang lang) : torch_(lang == CodeLang::torch) {}
  bool torch() const { return torch_; }
  // A line of code in NumPy's spelling.
  void operator()(const std::string& line) { body_ += (torch_ ? to_torch(line) : line) + "\n"; }
  void gap() { body_ += "\n"; }
  // Lines of code, one per line of `text` (an empty line stays empty).
  void block(const std::string& text) {
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      const std::string line = text.substr(pos, nl - pos);
      if (line.empty()) gap();
      else (*this)(line);
      pos = nl + 1;
    }
  }
  void comment(const std::string& text) { body_ += "# " + text + "\n"; }
  void import(const std::string& module) { imports_.insert(module); }
  // name = np.array([[...], ...]), one row a line, after an optional comment.
  void mat(const std::string& name, const Mat& m, const std::string& note = "") {
    if (!note.empty()) comment(note);
    const std::string open = name + " = " + (torch_ ? "torch.tensor([" : "np.array([");
    std::string s = open;
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      std::vector<float> row(m.row(r).data(), m.row(r).data() + m.cols());
      s += (r ? ",\n" + std::string(open.size(), ' ') : "") + num_list(row);
    }
    body_ += s + "])\n";
  }
  void value(const std::string& name, const std::string& v, const std::string& note = "") {
    body_ += name + " = " + v + (note.empty() ? "" : "  # " + note) + "\n";
  }
  // Prints output `name` (the demo's name for it), computed by `expr`.
  void show(const std::string& name, const std::string& expr = "") {
    const std::string line = "show(\"" + name + "\", " + (expr.empty() ? name : expr) + ")";
    shows_ += (torch_ ? to_torch(line) : line) + "\n";
  }
  void show_columns() { columns_ = true; }

  std::string program(const std::string& title, const std::string& what) const {
    std::string s;
    if (!title.empty()) s += "# Attention Lab: " + title + "\n";
    s += "# " + what + "\n";
    s += torch_ ? "# PyTorch; the lab computes in float32, this program in float64.\n"
                : "# NumPy; the lab computes in float32, this program in float64.\n";
    s += "# Prints one JSON line per output the panels show: {\"name\": ..., \"value\": [[...], ...]}.\n";
    s += "import json\n";
    for (const auto& m : imports_) s += "import " + m + "\n";
    s += torch_ ? "import torch\n\ntorch.set_default_dtype(torch.float64)\n" : "import numpy as np\n";
    if (!torch_ && body_.find("softmax(") != std::string::npos)
      s += "\n\ndef softmax(s):\n"
           "    \"\"\"Softmax of each row; the row's largest score is taken off first, so exp cannot overflow.\"\"\"\n"
           "    e = np.exp(s - np.amax(s, axis=-1, keepdims=True))\n"
           "    return e / e.sum(axis=-1, keepdims=True)\n";
    const std::string as_list = torch_ ? "torch.as_tensor(value).tolist()" : "np.asarray(value).tolist()";
    if (columns_)
      s += "\n\ndef show(name, value, columns=None):\n"
           "    line = {\"name\": name, \"value\": " + as_list + "}\n"
           "    if columns is not None:\n"
           "        line[\"columns\"] = columns  # only these columns of the lab's output\n"
           "    print(json.dumps(line))\n";
    else
      s += "\n\ndef show(name, value):\n    print(json.dumps({\"name\": name, \"value\": " + as_list + "}))\n";
    return s + "\n\n" + body_ + "\n" + shows_;
  }

 private:
  bool torch_;
  bool columns_ = false;
  std::string body_, shows_;
  std::set<std::string> imports_;
};

std::string rows_note(const std::string& what, const std::vector<std::string>& labels) {
  return labels.empty() ? what : what + ": " + join(labels, ", ");
}

const Mat& mat(const DemoInputs& in, const char* name) { return in.mats.at(name); }

// The guarded cosine the lab uses (a zero row has no direction: its cosines are 0).
void unit_rows_def(Py& P) {
  P("def unit(a):");
  P("    \"\"\"Each row divided by its length (a zero row stays zero).\"\"\"");
  P("    return a / np.clip(np.sqrt((a * a).sum(axis=-1, keepdims=True)), 1e-30, None)");
  P.gap();
}

// ---------------------------------------------------------------- 2 part A
// qkv_basic: score -> normalise -> mix.
std::string code_qkv_basic(Py& P, const DemoInputs& in) {
  const std::string score = setting(in, "score");
  P.mat("Q", mat(in, "q"), rows_note("queries, one row per token", in.tokens));
  P.mat("K", mat(in, "k"), "keys");
  P.mat("V", mat(in, "v"), "values");
  P.gap();
  if (score == "cosine") {
    // The lab guards the norms: sqrt(|x|^2 + 1e-12), the same cosine for any row that is not ~0.
    P("norm_Q = np.sqrt((Q * Q).sum(axis=1, keepdims=True) + 1e-12)  # |q_i| (guarded against 0)");
    P("norm_K = np.sqrt((K * K).sum(axis=1, keepdims=True) + 1e-12)");
    P("scores = (Q / norm_Q) @ (K / norm_K).T  # 1 score: cos(q_i, k_j)");
  } else if (score == "scaled_dot") {
    P("d_k = K.shape[1]");
    P("scores = Q @ K.T / d_k ** 0.5  # 1 score: q_i . k_j / sqrt(d_k)");
  } else {
    P("scores = Q @ K.T  # 1 score: q_i . k_j");
  }
  P("weights = softmax(scores)  # 2 normalise: softmax of each row");
  P("output = weights @ V  # 3 mix: b_i = sum_j w_ij v_j");
  for (const char* o : {"scores", "weights", "output"}) P.show(o);
  return "Self-attention on a few tokens: score, normalise (softmax), mix.";
}

std::string code_focus(Py& P, const DemoInputs& in) {
  P.mat("q", mat(in, "q"), "the query: " + setting(in, "query"));
  P.mat("K", mat(in, "k"), rows_note("keys, one row per word of the passage", in.tokens));
  P.gap();
  P("scores = q @ K.T  # one raw score q . k_j per word");
  P("weights = softmax(scores)  # where the question looks");
  P.show("scores");
  P.show("weights");
  return "One query over a passage: its scores and softmax weights.";
}

std::string code_image_focus(Py& P, const DemoInputs& in) {
  const auto features = setting_labels(in, "features");
  P.mat("q", mat(in, "q"), "the classifier's query: one weight per feature (" + join(features, ", ") + ")");
  P.mat("map1", mat(in, "map1"), "feature map: " + features[0] + " (one number per image patch)");
  P.mat("map2", mat(in, "map2"), "feature map: " + features[1]);
  P.gap();
  P("scores = q[0, 0] * map1 + q[0, 1] * map2  # one score per patch");
  P("weights = softmax(scores.reshape(1, -1)).reshape(scores.shape)  # one softmax over all patches");
  P.show("scores", "scores.reshape(1, -1)");
  P.show("weights");
  return "A query over the patches of an image: one softmax over the whole grid.";
}

std::string code_kv_memory(Py& P, const DemoInputs& in) {
  const bool hard = setting(in, "mode") == "hard";
  P.mat("q", mat(in, "q"), "the query: " + setting(in, "query"));
  P.mat("K", mat(in, "k"), rows_note("keys: the label on each slot", in.tokens));
  P.mat("V", mat(in, "v"), "values: what each slot holds");
  P.value("temperature", num(setting_number(in, "temperature")));
  P.gap();
  P("scores = q @ K.T / temperature  # 1 score");
  if (hard) {
    P("weights = np.zeros(scores.shape)  # 2 a hard read: weight 1 on the best slot");
    P("weights[0, int(np.argmax(scores))] = 1.0");
  } else {
    P("weights = softmax(scores)  # 2 a soft read: every slot in proportion");
  }
  P("output = weights @ V  # 3 read: sum_j w_j v_j");
  for (const char* o : {"scores", "weights", "output"}) P.show(o);
  return std::string("Reading a key-value memory with one query (") + (hard ? "hard" : "soft") + " read).";
}

std::string code_dot_geometry(Py& P, const DemoInputs& in) {
  P.import("math");
  P.mat("q", mat(in, "q"), "the query (x, y)");
  P.mat("K", mat(in, "k"), rows_note("keys (x, y)", in.tokens));
  P.gap();
  P.block(R"py(dots = q @ K.T  # q . k_j
norm_q = np.sqrt((q * q).sum())  # |q|
norm_K = np.sqrt((K * K).sum(axis=1)).reshape(1, -1)  # |k_j|
cosines = np.clip(dots / np.clip(norm_q * norm_K, 1e-12, None), -1.0, 1.0)  # 0 for a zero vector
angles = np.arccos(cosines) * 180 / math.pi  # degrees
projections = dots / np.clip(norm_q, 1e-12, None)  # k_j projected on q's direction: q . k = |q| x that
weights = softmax(dots))py");
  for (const char* o : {"dots", "cosines", "angles", "projections", "weights"}) P.show(o);
  return "The dot product as geometry: |q| |k| cos(angle).";
}

std::string code_values_mix(Py& P, const DemoInputs& in) {
  P.mat("q", mat(in, "q"), "the query: " + setting(in, "query"));
  P.mat("K", mat(in, "k"), rows_note("keys", in.tokens));
  P.mat("V", mat(in, "v"), "values, one column per feature: " + join(setting_labels(in, "features"), ", "));
  P.gap();
  P.block(R"py(scores = q @ K.T  # one number per pair
weights = softmax(scores)
contributions = weights.T * V  # row j: w_j v_j
output = contributions.sum(axis=0, keepdims=True)  # b = sum_j w_j v_j)py");
  for (const char* o : {"scores", "weights"}) P.show(o);
  P.show("contributions", "np.concatenate([contributions, output])");
  P.show("output");
  return "Why values: the weighted sum of value vectors, token by token.";
}

std::string code_projections(Py& P, const DemoInputs& in) {
  const bool learned = setting(in, "projection") == "learned";
  P.mat("X", mat(in, "x"), rows_note("embeddings, one row per token", in.tokens));
  if (learned) {
    P.mat("W_Q", mat(in, "w_q"));
    P.mat("W_K", mat(in, "w_k"));
    P.mat("W_V", mat(in, "w_v"));
  }
  P.gap();
  if (learned) {
    P("Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # learned projections");
  } else {
    P("Q, K, V = X, X, X  # raw: every token compared as it is");
  }
  P.block(R"py(scores = Q @ K.T
weights = softmax(scores)
output = weights @ V
asymmetry = scores - scores.T  # s_ij - s_ji)py");
  for (const char* o : {"Q", "K", "V", "scores", "weights", "output", "asymmetry"}) P.show(o);
  return learned ? "Queries, keys and values from learned projections of X." : "Raw self-attention: Q = K = V = X.";
}

// ---------------------------------------------------------------- 3 part B
std::string code_score_functions(Py& P, const DemoInputs& in) {
  const std::string score = setting(in, "score");
  P.mat("Q", mat(in, "q"), rows_note("queries", in.tokens));
  P.mat("K", mat(in, "k"), "keys");
  P.mat("W", mat(in, "w"), "general (bilinear) score: q W k");
  P.mat("W_q", mat(in, "w_q"), "additive score: v_a . tanh(q W_q + k W_k)");
  P.mat("W_k", mat(in, "w_k"));
  P.mat("v_a", mat(in, "v_a"));
  P.gap();
  P.block(R"py(d_k = K.shape[1]
norm_Q = np.sqrt((Q * Q).sum(axis=1, keepdims=True) + 1e-12)  # |q| (guarded against 0)
norm_K = np.sqrt((K * K).sum(axis=1, keepdims=True) + 1e-12)
hidden = np.tanh((Q @ W_q)[:, None, :] + (K @ W_k)[None, :, :])  # (query, key, d_a)
all_scores = {
    "dot": Q @ K.T,
    "scaled_dot": Q @ K.T / d_k ** 0.5,
    "general": Q @ W @ K.T,
    "additive": hidden @ v_a[0],
    "cosine": (Q / norm_Q) @ (K / norm_K).T,
})py");
  P.value("row", std::to_string(setting_int(in, "row")), "the query to compare: " + in.tokens[size_t(setting_int(in, "row"))]);
  P("compare = np.concatenate([softmax(s)[row:row + 1] for s in all_scores.values()])  # its weights under each");
  P("scores = all_scores[" + py_string(score) + "]");
  P("weights = softmax(scores)");
  for (const char* o : {"scores", "weights", "compare"}) P.show(o);
  return "Five scoring functions on the same queries and keys.";
}

// Base64 of float32 values (little-endian), the d_k demo's draws.
std::string base64_floats(const std::vector<float>& v) {
  static const char* const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (float f : v) {
    uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    for (int b = 0; b < 4; ++b) bytes += char((u >> (8 * b)) & 0xff);
  }
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 2]));
    out += digits[(chunk >> 18) & 63];
    out += digits[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[chunk & 63] : '=';
  }
  return out;
}

std::string code_dk_scaling(Py& P, const DemoInputs& in) {
  using namespace demo_impl;
  const int d_k = setting_int(in, "d_k"), n = setting_int(in, "n_keys"), seed = setting_int(in, "seed");
  const ScalingDraw draw = draw_scaling(n, uint64_t(seed));
  std::vector<float> numbers;  // the first d_k columns: the key sets, then the queries, row by row
  for (const Mat& K : draw.keys)
    for (Eigen::Index r = 0; r < K.rows(); ++r)
      for (int c = 0; c < d_k; ++c) numbers.push_back(K(r, c));
  for (Eigen::Index r = 0; r < draw.queries.rows(); ++r)
    for (int c = 0; c < d_k; ++c) numbers.push_back(draw.queries(r, c));
  const std::string data = base64_floats(numbers);
  P.import("base64");
  P.import("math");
  P.show_columns();
  P.value("d_k", std::to_string(d_k), "the size of queries and keys");
  P.value("n_keys", std::to_string(n));
  P.comment("The lab's standard-normal draws for seed " + std::to_string(seed) + ", as float32 bytes (base64): " +
            std::to_string(kKeySets) + " sets of n_keys keys, then " + std::to_string(kKeySets) + " x " +
            std::to_string(kQueriesPerSet) + " queries, d_k numbers each.");
  std::string lines;
  for (size_t i = 0; i < data.size(); i += 76) lines += "\n    \"" + data.substr(i, 76) + "\"";
  if (P.torch()) {
    P.import("array");
    P.value("raw", "torch.tensor(array.array(\"f\", base64.b64decode(" + lines + ")))");
  } else {
    P.value("raw", "np.frombuffer(base64.b64decode(" + lines + "), dtype=np.float32).astype(float)");
  }
  P("keys = raw[:" + std::to_string(kKeySets) + " * n_keys * d_k].reshape(" + std::to_string(kKeySets) + ", n_keys, d_k)");
  P("queries = raw[" + std::to_string(kKeySets) + " * n_keys * d_k:].reshape(" + std::to_string(kKeySets) + ", " +
    std::to_string(kQueriesPerSet) + ", d_k)");
  P.gap();
  P.gap();
  P.block(R"py(def stats(d):
    """Averages over the 48 queries with the first d numbers of every key and query: rows variance,
    largest weight, entropy (nats) and size of the softmax gradient; columns unscaled, scaled."""
    dots = queries[:, :, :d] @ np.swapaxes(keys[:, :, :d], 1, 2)  # (set, query, key): q . k
    variance = float(((dots - dots.mean()) ** 2).mean())
    table = [[variance, variance / d]]
    columns = []
    for scores in (dots, dots / d ** 0.5):
        p = softmax(scores)
        s2, s3 = (p ** 2).sum(axis=-1), (p ** 3).sum(axis=-1)
        columns.append([
            float(np.amax(p, axis=-1).mean()),
            float(-(p * np.log(np.clip(p, 1e-300, None))).sum(axis=-1).mean()),
            float(np.sqrt(np.clip(s2 - 2 * s3 + s2 ** 2, 0, None)).mean()),  # |diag(p) - p p^T|
        ])
    return np.array(table + [[columns[0][k], columns[1][k]] for k in range(3)])


now = stats(d_k)
first = queries[0, 0] @ keys[0].T  # the first query against its keys
example_scores = np.stack([first, first / d_k ** 0.5])
example_weights = softmax(example_scores)
points = [p for p in range(10) if 2 ** p <= d_k]  # d_k = 1, 2, 4, ... as far as the draws reach
curves = np.stack([stats(2 ** p) for p in points])  # (point, statistic, unscaled / scaled)
axis = np.array([points], dtype=float)  # log2 d_k
uniform = np.full((1, len(points)), math.log(n_keys))  # the most spread n_keys weights can be)py");
  for (const char* o : {"now", "example_scores", "example_weights"}) P.show(o);
  P.show("axis", "axis, points");
  P.show("variance", "curves[:, 0, :].T, points");
  P.show("max_weight", "curves[:, 1, :].T, points");
  P.show("entropy", "np.concatenate([curves[:, 2, :].T, uniform]), points");
  P.show("gradient", "curves[:, 3, :].T, points");
  return "Why divide by sqrt(d_k): random queries and keys, their scores, softmax and its gradient.";
}

std::string code_attention_modes(Py& P, const DemoInputs& in) {
  AttentionDesc desc;
  parse_mode(setting(in, "mode"), &desc.mode);
  parse_hard_kind(setting(in, "hard"), &desc.hard);
  parse_center_kind(setting(in, "center"), &desc.center);
  const uint64_t seed = uint64_t(setting_int(in, "seed"));
  const Mat& Q = mat(in, "q");
  const Eigen::Index n = Q.rows();
  P.mat("Q", Q, rows_note("queries", in.tokens));
  P.mat("K", mat(in, "k"), "keys");
  P.mat("V", mat(in, "v"), "values");
  P.gap();
  P("scores = Q @ K.T");
  P("soft_output = softmax(scores) @ V  # soft attention, to compare");
  switch (desc.mode) {
    case Mode::soft:
      P("weights = softmax(scores)  # soft: every key some weight");
      break;
    case Mode::hard:
      if (desc.hard == HardKind::argmax) {
        P("weights = np.eye(scores.shape[1])[np.argmax(scores, axis=1)]  # hard: weight 1 on the best key");
      } else {
        Rng rng(seed);
        std::vector<float> u;
        for (Eigen::Index i = 0; i < n; ++i) u.push_back(rng.uniform());
        P("u = np.array(" + num_list(u) + ")  # the lab's uniform draws for seed " + std::to_string(seed) +
          ", one per query");
        P.block(R"py(p = softmax(scores)
cumulative = np.cumsum(p, axis=1)
picks = [min(int((cumulative[i] <= u[i]).sum()), p.shape[1] - 1) for i in range(p.shape[0])]  # key drawn with chance p_ij
weights = np.eye(p.shape[1])[picks]  # hard: weight 1 on the drawn key)py");
      }
      break;
    case Mode::gumbel: {
      Rng rng(seed);
      Mat u(n, mat(in, "k").rows());
      for (Eigen::Index i = 0; i < u.rows(); ++i)
        for (Eigen::Index j = 0; j < u.cols(); ++j) u(i, j) = rng.uniform_open();
      P.value("tau", num(setting_number(in, "tau")), "the Gumbel-softmax temperature");
      P.mat("u", u, "the lab's uniform draws for seed " + std::to_string(seed) + ", one per (query, key)");
      P("noise = -np.log(-np.log(u))  # Gumbel(0, 1) noise");
      P("weights = softmax((scores + noise) / tau)");
      P.show("noise");
      break;
    }
    case Mode::local: {
      const bool predictive = desc.center == CenterKind::predictive;
      const int window = predictive ? std::max(1, setting_int(in, "window")) : setting_int(in, "window");
      P.value("D", std::to_string(window), "the window's half-width");
      P("positions = np.arange(scores.shape[1])");
      if (predictive) {
        Mat W_p, v_p;
        if (in.mats.count("w_p")) {
          W_p = mat(in, "w_p");
          v_p = mat(in, "v_p");
        } else {
          AttentionParams params;
          init_local_p_params(&params, int(Q.cols()), 2, 7);
          W_p = params.W_p;
          v_p = params.v_p.transpose();
        }
        P.mat("W_p", W_p, in.mats.count("w_p") ? "local-p: the centre predicted from q_i"
                                                : "local-p: the centre predicted from q_i (the lab's draws, seed 7)");
        P.mat("v_p", v_p);
        P("centers = len(positions) / (1 + np.exp(-(np.tanh(Q @ W_p) @ v_p.T)[:, 0]))  # p_i = n sigmoid(v_p . tanh(q_i W_p))");
      } else {
        P("centers = np.arange(scores.shape[0], dtype=float)  # local-m: p_i = i");
      }
      P("inside = np.abs(positions[None, :] - centers[:, None]) <= D  # the keys in each query's window");
      P("weights = softmax(np.where(inside, scores, -np.inf))");
      if (predictive)
        P("weights = weights * np.exp(-(positions[None, :] - centers[:, None]) ** 2 / (2 * (D / 2) ** 2))  # times a Gaussian, sigma = D / 2");
      P.show("centers", "centers.reshape(1, -1)");
      break;
    }
  }
  P("output = weights @ V");
  for (const char* o : {"scores", "weights", "output", "soft_output"}) P.show(o);
  return std::string("One input, four kinds of attention; this one: ") + mode_name(desc.mode) + ".";
}

std::string code_cross_vs_self(Py& P, const DemoInputs& in) {
  const bool cross = setting(in, "kind") == "cross";
  P.mat("X_enc", mat(in, "x_enc"), rows_note("encoder states", in.tokens));
  P.mat("X_dec", mat(in, "x_dec"), rows_note("decoder states", setting_labels(in, "targets")));
  P.mat("W_Q", mat(in, "w_q"));
  P.mat("W_K", mat(in, "w_k"));
  P.mat("W_V", mat(in, "w_v"));
  P.gap();
  P(cross ? "Q = X_dec @ W_Q  # cross: the queries come from the decoder" : "Q = X_enc @ W_Q  # self: the queries come from the same sequence");
  P.block(R"py(K = X_enc @ W_K
V = X_enc @ W_V
scores = Q @ K.T
weights = softmax(scores)
output = weights @ V  # one row per query)py");
  for (const char* o : {"Q", "K", "V", "scores", "weights", "output"}) P.show(o);
  return cross ? "Encoder-decoder (cross) attention." : "Self-attention over the source sentence.";
}

// ---------------------------------------------------------------- 4 part D and the block
std::string code_matrix_form(Py& P, const DemoInputs& in) {
  const bool scaled = setting(in, "score") == "scaled_dot", causal = setting(in, "causal") == "on";
  P.mat("X", mat(in, "x"), rows_note("inputs, one row a^i per token", in.tokens));
  P.mat("W_Q", mat(in, "w_q"));
  P.mat("W_K", mat(in, "w_k"));
  P.mat("W_V", mat(in, "w_v"));
  P.gap();
  P("Q, K, V = X @ W_Q, X @ W_K, X @ W_V");
  P("n, d_k = Q.shape");
  P(scaled ? "scores = Q @ K.T / d_k ** 0.5  # alpha" : "scores = Q @ K.T  # alpha");
  if (causal) {
    P("mask = np.tril(np.ones((n, n), dtype=bool))  # causal: token i sees tokens 1..i");
    P("weights = softmax(np.where(mask, scores, -np.inf))  # alpha'");
  } else {
    P("mask = np.ones((n, n), dtype=bool)  # no mask: every token sees all");
    P("weights = softmax(scores)  # alpha'");
  }
  P("output = weights @ V  # Z: row i is b^i");
  for (const char* o : {"Q", "K", "V", "scores"}) P.show(o);
  P.show("mask", "1.0 * mask");
  for (const char* o : {"weights", "output"}) P.show(o);
  return "Self-attention in matrix form: Z = softmax(Q K^T" + std::string(scaled ? " / sqrt(d_k)" : "") + ") V.";
}

std::string code_multihead(Py& P, const DemoInputs& in) {
  P.mat("X", mat(in, "x"), rows_note("inputs", in.tokens));
  P.mat("W_Q", mat(in, "w_q"), "each head takes a block of columns");
  P.mat("W_K", mat(in, "w_k"));
  P.mat("W_V", mat(in, "w_v"));
  P.mat("W_O", mat(in, "w_o"), "mixes the heads back together");
  P.value("h", setting(in, "heads"), "heads");
  P.gap();
  P.block(R"py(n = X.shape[0]
Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, h * d_h)
d_h = Q.shape[1] // h
Qh, Kh, Vh = (np.swapaxes(M.reshape(n, h, d_h), 0, 1) for M in (Q, K, V))  # (h, n, d_h)
weights = softmax(Qh @ np.swapaxes(Kh, 1, 2) / d_h ** 0.5)  # (h, n, n): one table per head
concat = np.swapaxes(weights @ Vh, 0, 1).reshape(n, h * d_h)  # the heads side by side
output = concat @ W_O)py");
  P.show("Q");
  P("for t in range(h):");
  P("    show(f\"weights_{t + 1}\", weights[t])");
  P.show("concat");
  P.show("output");
  return "Multi-head self-attention, head by head (scaled dot product).";
}

std::string code_heads_vs_layers(Py& P, const DemoInputs& in) {
  P.mat("X", mat(in, "x"), rows_note("inputs", in.tokens));
  P.mat("W_Q1", mat(in, "w_q1"), "unit 1");
  P.mat("W_K1", mat(in, "w_k1"));
  P.mat("W_Q2", mat(in, "w_q2"), "unit 2");
  P.mat("W_K2", mat(in, "w_k2"));
  P.gap();
  P.gap();
  P.block(R"py(def attend(Z, W_Q, W_K):
    """One head of self-attention whose values are Z itself (W_V = I): its weights and output."""
    Q, K = Z @ W_Q, Z @ W_K
    weights = softmax(Q @ K.T / Q.shape[1] ** 0.5)
    return weights, weights @ Z


heads_w1, out_1 = attend(X, W_Q1, W_K1)  # 2 heads x 1 layer: both units read X
heads_w2, out_2 = attend(X, W_Q2, W_K2)
out_heads = (out_1 + out_2) / 2  # concat [A_1 | A_2] times W_O = [I; I] / 2
layers_w1, layer1_output = attend(X, W_Q1, W_K1)  # 1 head x 2 layers
layers_w2, out_layers = attend(layer1_output, W_Q2, W_K2)  # unit 2 reads unit 1's output
differences = [[float(abs(heads_w2 - layers_w2).max()), float(abs(out_heads - out_layers).max())]])py");
  for (const char* o : {"heads_w1", "heads_w2", "layers_w1", "layers_w2", "layer1_output", "out_heads", "out_layers",
                        "differences"})
    P.show(o);
  return "Two attention units as two heads of one layer, or as two layers.";
}

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
  const Mat& X = mat(in, "x");
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
  const Mat& X = mat(in, "x");
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
  P.mat("X", mat(in, "x"), rows_note("one row per word (" + join(setting_labels(in, "features"), ", ") + ")", in.tokens));
  P.mat("W_Q", mat(in, "w_q"), "columns 1-2: head 1, 3-4: head 2");
  P.mat("W_K", mat(in, "w_k"));
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

std::string code_transformer_block(Py& P, const DemoInputs& in) {
  const bool pre = setting(in, "placement") == "pre";
  const TransformerBlockParams w = demo_impl::block_demo_weights();
  P.mat("x", mat(in, "x"), rows_note("one row per token", in.tokens));
  P.mat("gamma_1", mat(in, "ln1_gamma"), "LayerNorm gains");
  P.mat("gamma_2", mat(in, "ln2_gamma"));
  P.value("r", num(setting_number(in, "residual")), "the residual connections' scale");
  P.comment("The block's fixed weights (the lab's draws, seed 3); every bias and LayerNorm shift is 0.");
  P.mat("W_Q", w.W_Q);
  P.mat("W_K", w.W_K);
  P.mat("W_V", w.W_V);
  P.mat("W_O", w.W_O);
  P.mat("W_1", w.W_1);
  P.mat("W_2", w.W_2);
  P.gap();
  P.gap();
  P.block(R"py(def layer_norm(z, gamma):
    """Each row to mean 0 and variance 1, times gamma."""
    mean = z.mean(axis=-1, keepdims=True)
    var = ((z - mean) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (z - mean) / np.sqrt(var + 1e-5)


def attend(z):
    """Two heads of size 2 (scaled dot product), side by side, times W_O."""
    Q, K, V = z @ W_Q, z @ W_K, z @ W_V
    w_1 = softmax(Q[:, 0:2] @ K[:, 0:2].T / 2 ** 0.5)
    w_2 = softmax(Q[:, 2:4] @ K[:, 2:4].T / 2 ** 0.5)
    return np.concatenate([w_1 @ V[:, 0:2], w_2 @ V[:, 2:4]], axis=1) @ W_O, w_1, w_2


def feed_forward(z):
    hidden = z @ W_1
    return (hidden * (hidden > 0)) @ W_2  # relu, then back to d_model)py");
  P.gap();
  P.gap();
  if (pre) {
    P.block(R"py(ln1 = layer_norm(x, gamma_1)  # pre-norm
attention, weights_1, weights_2 = attend(ln1)
mid = r * x + attention  # h
ln2 = layer_norm(mid, gamma_2)
ffn = feed_forward(ln2)
output = r * mid + ffn  # y)py");
  } else {
    P.block(R"py(attention, weights_1, weights_2 = attend(x)  # post-norm
sum1 = r * x + attention
mid = layer_norm(sum1, gamma_1)  # h
ffn = feed_forward(mid)
sum2 = r * mid + ffn
output = layer_norm(sum2, gamma_2)  # y)py");
  }
  P("kept = (output * x).sum(axis=1) / np.clip(np.sqrt((output * output).sum(axis=1) * (x * x).sum(axis=1)), 1e-30, None)  # cos(y_i, x_i)");
  const std::vector<const char*> stages = pre ? std::vector<const char*>{"ln1", "attention", "mid", "ln2", "ffn", "output"}
                                              : std::vector<const char*>{"attention", "sum1", "mid", "ffn", "sum2", "output"};
  for (const char* o : stages) P.show(o);
  for (const char* o : {"weights_1", "weights_2"}) P.show(o);
  P.show("kept", "kept.reshape(1, -1)");
  return std::string("One Transformer block, stage by stage (") + (pre ? "pre" : "post") + "-norm).";
}

// ---------------------------------------------------------------- 5 the task demos
std::string code_decode_steps(Py& P, const DemoInputs& in) {
  const auto targets = setting_labels(in, "targets");
  std::vector<std::string> reads = {"<bos>"};
  for (const auto& t : targets)
    if (t != "<eos>") reads.push_back(t);
  P.value("source", py_list(in.tokens));
  P.value("targets", py_list(targets), "the words the decoder can write");
  P.value("reads", py_list(reads), "the rows of Q: the word just read");
  P.value("reference", py_list(setting_labels(in, "reference")));
  P.mat("Q", mat(in, "q"), "the query after reading each word");
  P.mat("K", mat(in, "k"), "the encoder's keys, one per source word");
  P.mat("V", mat(in, "v"), "which target word each source word votes for");
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
  P.mat("q", mat(in, "q"), rows_note("the text query, one row per word", in.tokens));
  P.mat("regions", mat(in, "regions"), "the photos' regions, photo after photo (" + join(images, ", ") + ")");
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
  P.mat("E", mat(in, "emissions"), "emissions: each token's score for each tag");
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

// ---------------------------------------------------------------- 6 registry and API
using CodeFn = std::string (*)(Py&, const DemoInputs&);
struct CodeEntry {
  const char* demo;
  CodeFn fn;
};

const CodeEntry kCode[] = {
    {"qkv_basic", code_qkv_basic},
    {"focus", code_focus},
    {"image_focus", code_image_focus},
    {"kv_memory", code_kv_memory},
    {"dot_geometry", code_dot_geometry},
    {"values_mix", code_values_mix},
    {"projections", code_projections},
    {"score_functions", code_score_functions},
    {"dk_scaling", code_dk_scaling},
    {"attention_modes", code_attention_modes},
    {"cross_vs_self", code_cross_vs_self},
    {"matrix_form", code_matrix_form},
    {"multihead", code_multihead},
    {"heads_vs_layers", code_heads_vs_layers},
    {"positional", code_positional},
    {"shuffle", code_shuffle},
    {"head_patterns", code_head_patterns},
    {"parallelism", code_parallelism},
    {"transformer_block", code_transformer_block},
    {"decode_steps", code_decode_steps},
    {"retrieval", code_retrieval},
    {"crf_tagging", code_crf_tagging},
};

CodeFn find_code(const std::string& demo) {
  for (const CodeEntry& e : kCode)
    if (demo == e.demo) return e.fn;
  return nullptr;
}

}  // namespace

bool demo_has_code(const std::string& demo) { return find_code(demo) != nullptr; }

std::string demo_code(const std::string& demo, const DemoInputs& in, CodeLang lang, const std::string& title) {
  const CodeFn fn = find_code(demo);
  if (!fn || !run_demo(demo, in).error.empty()) return "";
  DemoInputs full = in;
  for (const auto& [name, fallback] : demo_setting_defaults(demo))
    if (!full.settings.count(name) && !fallback.empty()) full.settings[name] = fallback;
  Py P(lang);
  const std::string what = fn(P, full);
  return P.program(title, what);
}

}  // namespace attn
