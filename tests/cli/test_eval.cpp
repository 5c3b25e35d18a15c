// test_eval.cpp: `attnlab eval` requests and responses.
//
// Sections: 1 helpers, 2 the documented examples (docs/examples, docs/eval.md),
// 3 results against naive loops, 4 gradients against finite differences through
// eval_request itself, 5 warnings, 6 errors and limits.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "attn/transformer.h"
#include "base/json.h"
#include "base/rng.h"
#include "base/tensor.h"
#include "cli/eval.h"
#include "support/gradcheck.h"
#include "train/char_lm.h"

using attn::eval_request;
using attn::EvalResult;
using attn::Mat;
using attn::json::Value;

namespace {

// ---------------------------------------------------------------- 1 helpers
bool read_text_file(const std::string& path, std::string* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[4096];
  std::size_t n;
  out->clear();
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  std::fclose(f);
  return true;
}

Value parse_or_fail(const std::string& text, const std::string& what) {
  const auto r = attn::json::parse(text);
  REQUIRE_MESSAGE(r.ok, what << ": " << r.error.to_string());
  return r.value;
}

// Evaluates a request that must succeed and returns the parsed response.
Value eval_ok(const std::string& request) {
  const EvalResult r = eval_request(request);
  REQUIRE_MESSAGE(r.ok, "unexpected error: " << r.error_line() << "\nrequest: " << request);
  CHECK(r.exit_status == 0);
  return parse_or_fail(r.response, "response");
}

// Evaluates a request that must fail and returns the one-line error.
std::string eval_error(const std::string& request) {
  const EvalResult r = eval_request(request);
  REQUIRE_MESSAGE(!r.ok, "expected an error for: " << request);
  CHECK(r.exit_status == 2);
  CHECK(r.response.empty());
  const std::string line = r.error_line();
  CHECK(line.find('\n') == std::string::npos);
  return line;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Numeric JSON comparison: same structure, strings/bools/null equal, numbers
// within |a - b| <= rel * max(|a|, |b|) + abs_floor. (The floor only matters for
// values that should be 0 but come out as 1e-9 from a different summation order.)
bool json_close(const Value& a, const Value& b, const std::string& path, std::string* why, double rel = 1e-5,
                double abs_floor = 1e-6) {
  if (a.type() != b.type()) {
    *why = path + ": " + attn::json::type_name(a.type()) + " vs " + attn::json::type_name(b.type());
    return false;
  }
  if (a.is_number()) {
    const double x = a.as_number(), y = b.as_number();
    if (std::abs(x - y) <= rel * std::max(std::abs(x), std::abs(y)) + abs_floor) return true;
    *why = path + ": " + attn::json::format_number(x) + " vs " + attn::json::format_number(y);
    return false;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      *why = path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " items";
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!json_close(a.items()[i], b.items()[i], path + "[" + std::to_string(i) + "]", why, rel, abs_floor))
        return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) {
      *why = path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " fields";
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      const auto& ma = a.members()[i];
      const auto& mb = b.members()[i];
      if (ma.key != mb.key) {
        *why = path + ": field \"" + ma.key + "\" vs \"" + mb.key + "\"";
        return false;
      }
      if (!json_close(ma.value, mb.value, path + "." + ma.key, why, rel, abs_floor)) return false;
    }
    return true;
  }
  if (a != b) {
    *why = path + ": " + attn::json::write(a) + " vs " + attn::json::write(b);
    return false;
  }
  return true;
}

// A JSON matrix (array of rows) or vector (as one row) as a Mat.
Mat to_mat(const Value& v) {
  if (v.size() > 0 && v.items()[0].is_number()) {
    Mat m(1, Eigen::Index(v.size()));
    for (std::size_t j = 0; j < v.size(); ++j) m(0, Eigen::Index(j)) = float(v.items()[j].as_number());
    return m;
  }
  const Eigen::Index rows = Eigen::Index(v.size());
  const Eigen::Index cols = rows > 0 ? Eigen::Index(v.items()[0].size()) : 0;
  Mat m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = float(v.items()[std::size_t(r)].items()[std::size_t(c)].as_number());
  return m;
}

Value from_mat(const Mat& m, bool as_vector) {
  Value out = Value::array();
  if (as_vector) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) out.push(m(0, j));
    return out;
  }
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Value row = Value::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push(m(r, c));
    out.push(std::move(row));
  }
  return out;
}

// Follows a path such as "reverse.w_ih" or "head_score[1].w" from `root`.
const Value* at(const Value& root, const std::string& path) {
  const Value* v = &root;
  std::size_t start = 0;
  while (v && start <= path.size()) {
    std::size_t end = path.find('.', start);
    if (end == std::string::npos) end = path.size();
    std::string token = path.substr(start, end - start);
    int index = -1;
    const std::size_t bracket = token.find('[');
    if (bracket != std::string::npos) {
      index = std::stoi(token.substr(bracket + 1));
      token = token.substr(0, bracket);
    }
    v = v->find(token);
    if (v && index >= 0) v = std::size_t(index) < v->size() ? &v->items()[std::size_t(index)] : nullptr;
    start = end + 1;
  }
  return v;
}

Value* at(Value& root, const std::string& path) { return const_cast<Value*>(at(static_cast<const Value&>(root), path)); }

// ---------------------------------------------------------------- 2 the documented examples
const char* kExamplesDir = "docs/examples";

struct Example {
  std::string name;  // e.g. "attention_basic"
  std::string request_text;
  std::string expected_text;
};

// Every docs/examples/NAME.json with its NAME.expected.json. Returns false when
// the directory cannot be read (e.g. WebAssembly without host file access).
bool load_examples(std::vector<Example>* out) {
  std::error_code ec;
  std::filesystem::directory_iterator it(kExamplesDir, ec);
  if (ec) return false;
  std::set<std::string> requests, expected;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return false;
    const std::string file = it->path().filename().string();
    const std::string exp_suffix = ".expected.json";
    if (file.size() > exp_suffix.size() && file.compare(file.size() - exp_suffix.size(), exp_suffix.size(), exp_suffix) == 0)
      expected.insert(file.substr(0, file.size() - exp_suffix.size()));
    else if (file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0)
      requests.insert(file.substr(0, file.size() - 5));
  }
  for (const std::string& name : expected)
    CHECK_MESSAGE(requests.count(name) == 1, "docs/examples/" << name << ".expected.json has no request file");
  for (const std::string& name : requests) {
    Example e;
    e.name = name;
    const std::string base = std::string(kExamplesDir) + "/" + name;
    REQUIRE_MESSAGE(read_text_file(base + ".json", &e.request_text), "cannot read " << base << ".json");
    REQUIRE_MESSAGE(read_text_file(base + ".expected.json", &e.expected_text),
                    base << ".json has no expected response " << base << ".expected.json");
    out->push_back(std::move(e));
  }
  return true;
}

}  // namespace

TEST_CASE("eval: every docs/examples request gives its documented response") {
  std::vector<Example> examples;
  if (!load_examples(&examples)) {
#ifdef __EMSCRIPTEN__
    MESSAGE("docs/examples is not readable here (WebAssembly without host file access): skipped");
    return;
#else
    FAIL("cannot read docs/examples (tests must run with the repository root as working directory)");
#endif
  }
  std::set<std::string> kinds;
  int with_grad = 0, errors = 0;
  for (const Example& e : examples) {
    CAPTURE(e.name);
    const Value request = parse_or_fail(e.request_text, e.name + ".json");
    const Value expected = parse_or_fail(e.expected_text, e.name + ".expected.json");
    const EvalResult r = eval_request(e.request_text);
    if (expected.find("stderr")) {
      // An error example: the expected file holds what the CLI prints and returns.
      ++errors;
      CHECK_FALSE(r.ok);
      CHECK(r.exit_status == int(expected.find("exit_status")->as_number()));
      CHECK("attnlab eval: " + r.error_line() == expected.find("stderr")->as_string());
      continue;
    }
    REQUIRE_MESSAGE(r.ok, r.error_line());
    kinds.insert(request.find("kind")->as_string());
    if (request.find("grad_output")) ++with_grad;
    std::string why;
    CHECK_MESSAGE(json_close(parse_or_fail(r.response, "response"), expected, e.name, &why), why);
  }
  // The documentation promises at least one example of each of these.
  CHECK(kinds ==
        std::set<std::string>{"attention", "self_attention", "positional", "rnn", "transformer_block", "decoder"});
  CHECK(with_grad >= 1);
  CHECK(errors >= 1);
}

TEST_CASE("eval: examples quoted in docs/eval.md match the files verbatim") {
  std::string doc;
  std::vector<Example> examples;
  if (!read_text_file("docs/eval.md", &doc) || !load_examples(&examples)) {
#ifdef __EMSCRIPTEN__
    MESSAGE("docs/ is not readable here (WebAssembly without host file access): skipped");
    return;
#else
    FAIL("cannot read docs/eval.md or docs/examples");
#endif
  }
  // An example the page names must be shown exactly as the files hold it, so a
  // learner reading the page sees what the program really prints.
  int quoted = 0;
  std::set<std::string> kinds_quoted;
  for (const Example& e : examples) {
    if (!contains(doc, "examples/" + e.name + ".json")) continue;
    CAPTURE(e.name);
    ++quoted;
    CHECK_MESSAGE(contains(doc, e.request_text), "docs/eval.md does not quote " << e.name << ".json verbatim");
    CHECK_MESSAGE(contains(doc, e.expected_text),
                  "docs/eval.md does not quote " << e.name << ".expected.json verbatim");
    const Value request = parse_or_fail(e.request_text, e.name);
    if (const Value* kind = request.find("kind")) kinds_quoted.insert(kind->as_string());
  }
  CHECK(quoted >= 5);
  CHECK(kinds_quoted.size() == 6);
}

// ---------------------------------------------------------------- 3 results against naive loops
TEST_CASE("eval: attention matches softmax(q k^T / sqrt(d)) v computed with plain loops") {
  // Fixed pseudo-random inputs; the reference is written independently here,
  // in double, from the formula.
  const int n_q = 3, n_k = 4, d = 5, d_v = 2;
  attn::Rng rng(42);
  Mat Q(n_q, d), K(n_k, d), V(n_k, d_v);
  for (Mat* m : {&Q, &K, &V})
    for (Eigen::Index i = 0; i < m->size(); ++i) m->data()[i] = rng.uniform(-2.0f, 2.0f);
  Value req = Value::object();
  req.set("kind", "attention");
  req.set("q", from_mat(Q, false));
  req.set("k", from_mat(K, false));
  req.set("v", from_mat(V, false));
  const Value resp = eval_ok(attn::json::write(req));
  const Mat weights = to_mat(*resp.find("weights"));
  const Mat output = to_mat(*resp.find("output"));
  for (int i = 0; i < n_q; ++i) {
    std::vector<double> s(n_k);
    double m = -1e300, z = 0;
    for (int j = 0; j < n_k; ++j) {
      double dotp = 0;
      for (int t = 0; t < d; ++t) dotp += double(Q(i, t)) * K(j, t);
      s[std::size_t(j)] = dotp / std::sqrt(double(d));
      m = std::max(m, s[std::size_t(j)]);
    }
    for (int j = 0; j < n_k; ++j) z += std::exp(s[std::size_t(j)] - m);
    for (int j = 0; j < n_k; ++j) CHECK(weights(i, j) == doctest::Approx(std::exp(s[std::size_t(j)] - m) / z).epsilon(1e-5));
    for (int c = 0; c < d_v; ++c) {
      double o = 0;
      for (int j = 0; j < n_k; ++j) o += std::exp(s[std::size_t(j)] - m) / z * V(j, c);
      CHECK(output(i, c) == doctest::Approx(o).epsilon(1e-5));
    }
  }
}

TEST_CASE("eval: self_attention heads, concat and output fit together") {
  const Value resp = eval_ok(R"({"kind": "self_attention",
    "x": [[1, 2], [0, -1], [0.5, 0.25]],
    "w_q": [[1, 0, 0.5, 1, 0, 2], [0, 1, 1, 0, -1, 0]],
    "w_k": [[0, 1, 1, 0, 1, 1], [1, 0, 0, 1, 0, -1]],
    "w_v": [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]],
    "heads": 3, "w_o": [[1], [0], [0], [1], [0], [-1]], "mask": "causal"})");
  const Value& heads = *resp.find("heads");
  REQUIRE(heads.size() == 3);
  const Mat X = to_mat(parse_or_fail("[[1, 2], [0, -1], [0.5, 0.25]]", "x"));
  const Mat W_V = to_mat(parse_or_fail("[[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]]", "w_v"));
  const Mat concat = to_mat(*resp.find("concat"));
  for (int t = 0; t < 3; ++t) {
    const Mat v = to_mat(*heads.items()[std::size_t(t)].find("v"));
    const Mat w = to_mat(*heads.items()[std::size_t(t)].find("weights"));
    const Mat o = to_mat(*heads.items()[std::size_t(t)].find("output"));
    // Head t's values are columns [2t, 2t+2) of X W_V.
    CHECK((v - (X * W_V).middleCols(2 * t, 2)).cwiseAbs().maxCoeff() < 1e-5f);
    // Causal: query 0 sees only key 0.
    CHECK(w(0, 0) == doctest::Approx(1.0));
    CHECK(w(0, 1) == 0.0f);
    CHECK(w(1, 2) == 0.0f);
    CHECK((o - w * v).cwiseAbs().maxCoeff() < 1e-5f);
    CHECK((concat.middleCols(2 * t, 2) - o).cwiseAbs().maxCoeff() == 0.0f);
  }
  const Mat output = to_mat(*resp.find("output"));
  REQUIRE(output.cols() == 1);
  for (int i = 0; i < 3; ++i) CHECK(output(i, 0) == doctest::Approx(concat(i, 0) + concat(i, 3) - concat(i, 5)).epsilon(1e-5));
}

TEST_CASE("eval: positional encoding values by hand") {
  const Value resp = eval_ok(R"({"kind": "positional", "n": 3, "d": 4})");
  const Mat pe = to_mat(*resp.find("pe"));
  REQUIRE(pe.rows() == 3);
  REQUIRE(pe.cols() == 4);
  CHECK(resp.find("output") == nullptr);
  // Row 2: sin(2), cos(2), sin(2 / 100), cos(2 / 100) (omega_1 = 10000^(-2/4)).
  CHECK(pe(2, 0) == doctest::Approx(std::sin(2.0)).epsilon(1e-6));
  CHECK(pe(2, 1) == doctest::Approx(std::cos(2.0)).epsilon(1e-6));
  CHECK(pe(2, 2) == doctest::Approx(std::sin(0.02)).epsilon(1e-6));
  CHECK(pe(2, 3) == doctest::Approx(std::cos(0.02)).epsilon(1e-6));
  const Value split = eval_ok(R"({"kind": "positional", "n": 2, "d": 2, "layout": "split", "base": 10,
                                  "x": [[1], [2]], "combine": "concat"})");
  const Mat out = to_mat(*split.find("output"));
  REQUIRE(out.cols() == 3);
  CHECK(out(1, 0) == 2.0f);                                                  // x
  CHECK(out(1, 1) == doctest::Approx(std::cos(1.0)).epsilon(1e-6));          // cos half first
  CHECK(out(1, 2) == doctest::Approx(std::sin(1.0)).epsilon(1e-6));          // then the sin half
}

TEST_CASE("eval: rnn_tanh by hand, h_n and the vector form of h0") {
  // h_t = tanh(w_ih x_t + b_ih + w_hh h_{t-1} + b_hh), H = 1.
  const Value resp = eval_ok(R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1], [2]],
    "w_ih": [[0.5]], "w_hh": [[-1]], "b_ih": [0.1], "b_hh": [0], "h0": [0.3]})");
  const double h1 = std::tanh(0.5 * 1 + 0.1 - 1.0 * 0.3);
  const double h2 = std::tanh(0.5 * 2 + 0.1 - 1.0 * h1);
  const Mat h = to_mat(*resp.find("h"));
  CHECK(h(0, 0) == doctest::Approx(h1).epsilon(1e-6));
  CHECK(h(1, 0) == doctest::Approx(h2).epsilon(1e-6));
  CHECK(to_mat(*resp.find("h_n"))(0, 0) == doctest::Approx(h2).epsilon(1e-6));
  CHECK(resp.find("c_n") == nullptr);
  // Biases are optional (zero when absent).
  const Value no_bias = eval_ok(R"({"kind": "rnn", "cell": "gru", "x": [[1]],
    "w_ih": [[1], [1], [1]], "w_hh": [[1], [1], [1]]})");
  // GRU from h = 0: r, z = sigmoid(1), n = tanh(1 + r * 0), h' = (1 - z) n.
  const double z = 1.0 / (1.0 + std::exp(-1.0));
  CHECK(to_mat(*no_bias.find("h"))(0, 0) == doctest::Approx((1 - z) * std::tanh(1.0)).epsilon(1e-6));
}

TEST_CASE("eval: transformer_block gives what the core gives, each field in its place") {
  // Every parameter different and random, so a field read into the wrong
  // parameter (w_q as w_k, ln1 as ln2, b_1 as b_2) changes the result.
  attn::Rng rng(5);
  auto random = [&](Eigen::Index rows, Eigen::Index cols) {
    Mat m(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = rng.uniform(-0.8f, 0.8f);
    return m;
  };
  const int n = 3, d = 4, d_ff = 5;
  const Mat X = random(n, d);
  attn::TransformerBlockParams p;
  p.W_Q = random(d, d), p.W_K = random(d, d), p.W_V = random(d, d), p.W_O = random(d, d);
  p.W_1 = random(d, d_ff), p.W_2 = random(d_ff, d);
  for (attn::Vec* v : {&p.b_Q, &p.b_K, &p.b_V, &p.b_O, &p.ln1_beta, &p.ln2_beta, &p.b_2}) *v = random(d, 1);
  p.b_1 = random(d_ff, 1);
  p.ln1_gamma = random(d, 1).array() + 1.0f;
  p.ln2_gamma = random(d, 1).array() + 1.0f;
  const Mat G = random(n, d);
  auto vec = [](const attn::Vec& v) { return from_mat(Mat(v.transpose()), true); };
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    attn::TransformerBlockDesc desc;
    desc.heads = 2;
    desc.norm_first = norm_first;
    desc.causal = true;
    desc.activation = attn::Activation::gelu;
    desc.eps = 1e-3f;
    Value req = Value::object();
    req.set("kind", "transformer_block");
    req.set("x", from_mat(X, false));
    req.set("w_q", from_mat(p.W_Q, false));
    req.set("b_q", vec(p.b_Q));
    req.set("w_k", from_mat(p.W_K, false));
    req.set("b_k", vec(p.b_K));
    req.set("w_v", from_mat(p.W_V, false));
    req.set("b_v", vec(p.b_V));
    req.set("w_o", from_mat(p.W_O, false));
    req.set("b_o", vec(p.b_O));
    req.set("ln1_gamma", vec(p.ln1_gamma));
    req.set("ln1_beta", vec(p.ln1_beta));
    req.set("ln2_gamma", vec(p.ln2_gamma));
    req.set("ln2_beta", vec(p.ln2_beta));
    req.set("w_1", from_mat(p.W_1, false));
    req.set("b_1", vec(p.b_1));
    req.set("w_2", from_mat(p.W_2, false));
    req.set("b_2", vec(p.b_2));
    req.set("heads", 2);
    req.set("norm_first", norm_first);
    req.set("causal", true);
    req.set("activation", "gelu");
    req.set("eps", 1e-3);
    req.set("grad_output", from_mat(G, false));
    const Value resp = eval_ok(attn::json::write(req));
    const attn::TransformerBlockResult r = attn::transformer_block_forward(X, desc, p);
    REQUIRE(r.ok());
    const attn::TransformerBlockGrads g = attn::transformer_block_backward(X, desc, p, r, G);
    REQUIRE(g.ok());
    auto same = [](const Value* json, const Mat& expected) {
      REQUIRE(json != nullptr);
      const Mat got = to_mat(*json);
      REQUIRE(got.rows() == expected.rows());
      REQUIRE(got.cols() == expected.cols());
      CHECK(got == expected);  // the response's numbers read back as the same float32
    };
    same(resp.find("output"), r.output);
    same(resp.find("h"), r.mid);
    same(resp.find("ffn_hidden"), r.ffn.hidden);
    same(at(resp, "heads[1].weights"), r.attention.weights[1]);
    same(at(resp, "grad.x"), g.dX);
    same(at(resp, "grad.w_k"), g.params.W_K);
    same(at(resp, "grad.b_v"), Mat(g.params.b_V.transpose()));
    same(at(resp, "grad.ln1_gamma"), Mat(g.params.ln1_gamma.transpose()));
    same(at(resp, "grad.ln2_beta"), Mat(g.params.ln2_beta.transpose()));
    same(at(resp, "grad.b_1"), Mat(g.params.b_1.transpose()));
    same(at(resp, "grad.w_2"), g.params.W_2);
  }
  // Biases and LayerNorm parameters left out take their defaults (0, gamma 1).
  const Value plain = eval_ok(R"({"kind": "transformer_block", "x": [[1, 2], [0, -1]],
    "w_q": [[1, 0], [0, 1]], "w_k": [[1, 0], [0, 1]], "w_v": [[1, 0], [0, 1]], "w_o": [[1, 0], [0, 1]],
    "w_1": [[1], [1]], "w_2": [[1, 1]]})");
  attn::TransformerInitDesc init;
  init.d_model = 2;
  init.d_ff = 1;
  attn::TransformerBlockParams defaults = attn::init_transformer_block_params(init);
  defaults.W_Q = defaults.W_K = defaults.W_V = defaults.W_O = Mat::Identity(2, 2);
  defaults.W_1 = Mat::Ones(2, 1);
  defaults.W_2 = Mat::Ones(1, 2);
  Mat x2(2, 2);
  x2 << 1, 2, 0, -1;
  CHECK(to_mat(*plain.find("output")) == attn::transformer_block_forward(x2, {}, defaults).output);
}

// ---------------------------------------------------------------- 4 gradients
namespace {

// The paths of every matrix or vector under `v`: "x", "reverse.w_ih", "head_score[0].w".
void collect_leaves(const Value& v, const std::string& prefix, std::set<std::string>* out) {
  if (v.is_object()) {
    for (const auto& m : v.members()) collect_leaves(m.value, prefix + m.key + ".", out);
  } else if (v.is_array() && v.size() > 0 && v.items()[0].is_object()) {
    const std::string base = prefix.substr(0, prefix.size() - 1);
    for (std::size_t i = 0; i < v.size(); ++i) collect_leaves(v.items()[i], base + "[" + std::to_string(i) + "].", out);
  } else {
    out->insert(prefix.substr(0, prefix.size() - 1));
  }
}

// Checks every grad.<param> of `request_text` against central differences of
// objective(response), each evaluated by a full eval_request: this tests the
// wiring (names, shapes, vector forms, summing dX over the roles x plays), not
// just the core kernels.
void check_eval_gradients_of(const std::string& request_text, const std::function<double(const Value&)>& objective,
                             const std::vector<std::string>& params, attn::test::GradCheck opt = {}) {
  const Value request = parse_or_fail(request_text, "request");
  const Value resp = eval_ok(request_text);
  const Value* grad = resp.find("grad");
  REQUIRE(grad != nullptr);
  std::set<std::string> leaves;
  collect_leaves(*grad, "", &leaves);
  CHECK(leaves == std::set<std::string>(params.begin(), params.end()));
  for (const std::string& name : params) {
    CAPTURE(name);
    const Value* given = at(request, name);
    const Value* analytic_json = at(*grad, name);
    REQUIRE(given != nullptr);
    REQUIRE_MESSAGE(analytic_json != nullptr, "grad." << name << " is missing");
    const bool as_vector = given->size() > 0 && given->items()[0].is_number();
    CHECK(as_vector == (analytic_json->size() > 0 && analytic_json->items()[0].is_number()));
    Mat param = to_mat(*given);
    const Mat analytic = to_mat(*analytic_json);
    Value work = request;
    const std::function<double()> loss = [&]() {
      *at(work, name) = from_mat(param, as_vector);
      const EvalResult r = eval_request(attn::json::write(work));
      REQUIRE(r.ok);
      return objective(parse_or_fail(r.response, "response"));
    };
    attn::test::check_gradient("grad." + name, param, analytic, loss, opt);
  }
}

// The same for L = sum(grad_output * main_output), the request's grad_output.
void check_eval_gradients(const std::string& request_text, const std::string& main_output,
                          const std::vector<std::string>& params) {
  const Mat G = to_mat(*parse_or_fail(request_text, "request").find("grad_output"));
  check_eval_gradients_of(
      request_text,
      [&](const Value& response) {
        const Mat out = to_mat(*at(response, main_output));
        double sum = 0;
        for (Eigen::Index i = 0; i < G.rows(); ++i)
          for (Eigen::Index j = 0; j < G.cols(); ++j) sum += double(G(i, j)) * out(i, j);
        return sum;
      },
      params);
}

}  // namespace

TEST_CASE("eval: attention gradients (scaled_dot, general, additive, local-p, gumbel)") {
  check_eval_gradients(R"({"kind": "attention", "q": [[0.5, -1, 0.2], [1, 0.3, -0.4]],
    "k": [[0.1, 0.2, 0.3], [-0.5, 0.4, 1], [0.7, -0.2, 0.1]], "v": [[1, 2], [0, -1], [0.5, 0.5]],
    "mask": [[true, true, false], [true, true, true]],
    "grad_output": [[1, -0.5], [0.3, 2]]})",
                       "output", {"q", "k", "v"});
  check_eval_gradients(R"({"kind": "attention", "score": "general", "temperature": 2,
    "q": [[0.5, -1], [1, 0.3]], "k": [[0.1, 0.2, 0.3], [-0.5, 0.4, 1]], "v": [[1], [-1]],
    "w": [[0.2, -0.1, 0.4], [0.3, 0.5, -0.6]], "grad_output": [[1], [-2]]})",
                       "output", {"q", "k", "v", "w"});
  check_eval_gradients(R"({"kind": "attention", "score": "additive",
    "q": [[0.5, -1], [1, 0.3]], "k": [[0.1, 0.2], [-0.5, 0.4], [0.3, 0.3]], "v": [[1], [-1], [2]],
    "w_q": [[0.2, -0.1, 0.4], [0.3, 0.5, -0.6]], "w_k": [[1, 0, 0.5], [0.2, -0.3, 0.1]], "v_a": [0.5, -1, 0.7],
    "grad_output": [[1], [-2]]})",
                       "output", {"q", "k", "v", "w_q", "w_k", "v_a"});
  // local-p with a window wider than the keys, so no key crosses a window edge
  // inside the finite-difference step.
  check_eval_gradients(R"({"kind": "attention", "mode": "local", "center": "predictive", "window": 4,
    "q": [[0.5, -1], [1, 0.3]], "k": [[0.1, 0.2], [-0.5, 0.4], [0.3, 0.3]], "v": [[1], [-1], [2]],
    "w_p": [[0.5, -0.2], [0.1, 0.4]], "v_p": [1, -0.5], "grad_output": [[1], [-2]]})",
                       "output", {"q", "k", "v", "w_p", "v_p"});
  check_eval_gradients(R"({"kind": "attention", "mode": "gumbel", "gumbel_tau": 0.7, "seed": 3,
    "q": [[0.5, -1], [1, 0.3]], "k": [[0.1, 0.2], [-0.5, 0.4]], "v": [[1], [-1]],
    "grad_output": [[1], [-2]]})",
                       "output", {"q", "k", "v"});
}

TEST_CASE("eval: self_attention gradients (w_o, causal mask, per-head general scores)") {
  check_eval_gradients(R"({"kind": "self_attention", "heads": 2, "mask": "causal",
    "x": [[0.5, -1, 0.2], [1, 0.3, -0.4], [0.1, 0.1, 0.9]],
    "w_q": [[0.2, -0.1, 0.4, 0.1], [0.3, 0.5, -0.6, 0.2], [0.1, 0.1, 0.1, -0.3]],
    "w_k": [[0.1, 0.3, -0.2, 0.5], [-0.4, 0.2, 0.1, 0.3], [0.2, -0.5, 0.4, 0.1]],
    "w_v": [[1, 0, 0.5, -0.5], [0, 1, 0.3, 0.2], [0.4, -0.3, 1, 0]],
    "w_o": [[1, 0], [0, 1], [0.5, 0.5], [-1, 0.2]],
    "grad_output": [[1, -0.5], [0.3, 2], [-1, 0.4]]})",
                       "output", {"x", "w_q", "w_k", "w_v", "w_o"});
  check_eval_gradients(R"({"kind": "self_attention", "heads": 2, "score": "general",
    "x": [[0.5, -1], [1, 0.3]],
    "w_q": [[0.2, -0.1, 0.4, 0.1], [0.3, 0.5, -0.6, 0.2]],
    "w_k": [[0.1, 0.3, -0.2, 0.5], [-0.4, 0.2, 0.1, 0.3]],
    "w_v": [[1, 0, 0.5, -0.5], [0, 1, 0.3, 0.2]],
    "head_score": [{"w": [[1, 0.2], [0, 1]]}, {"w": [[0.5, 0], [0.3, -1]]}],
    "grad_output": [[1, -0.5, 0.2, 0.1], [0.3, 2, -1, 0]]})",
                       "output", {"x", "w_q", "w_k", "w_v", "head_score[0].w", "head_score[1].w"});
}

TEST_CASE("eval: positional and rnn gradients (lstm, bidirectional, vector h0)") {
  check_eval_gradients(R"({"kind": "positional", "n": 2, "d": 2, "x": [[1, 2], [3, 4]],
    "combine": "concat", "grad_output": [[1, 2, 3, 4], [5, 6, 7, 8]]})",
                       "output", {"x"});
  check_eval_gradients(R"({"kind": "rnn", "cell": "lstm", "bidirectional": true,
    "x": [[0.5, -1], [1, 0.3], [0.2, 0.2]],
    "w_ih": [[0.1, 0.2], [0.3, -0.1], [0.5, 0.4], [-0.2, 0.3]], "w_hh": [[0.5], [-0.3], [0.2], [0.4]],
    "b_ih": [0.1, 0.2, 0, -0.1], "b_hh": [0, 0.1, 0.1, 0],
    "h0": [[0.1], [-0.2]], "c0": [[0.3], [0.1]],
    "reverse": {"w_ih": [[0.2, -0.2], [0.1, 0.3], [-0.4, 0.5], [0.3, 0.1]], "w_hh": [[0.1], [0.2], [-0.5], [0.3]],
                "b_ih": [0, 0, 0.2, 0], "b_hh": [0.1, -0.1, 0, 0.2]},
    "grad_output": [[1, -0.5], [0.3, 2], [-1, 0.4]]})",
                       "h", {"x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh",
                                "reverse.w_ih", "reverse.w_hh", "reverse.b_ih", "reverse.b_hh"});
  check_eval_gradients(R"({"kind": "rnn", "cell": "gru", "x": [[0.5], [-1], [0.25]],
    "w_ih": [[0.1], [0.3], [0.5], [0.2], [-0.4], [0.6]], "w_hh": [[0.5, 0.1], [-0.3, 0.2], [0.2, 0.2], [0.4, -0.1], [0.3, 0.3], [-0.2, 0.5]],
    "h0": [0.1, -0.3], "grad_output": [[1, -0.5], [0.3, 2], [-1, 0.4]]})",
                       "h", {"x", "h0", "w_ih", "w_hh"});
}

TEST_CASE("eval: transformer_block gradients (post-norm relu causal two heads, pre-norm gelu)") {
  const std::vector<std::string> all = {"x",         "w_q",       "b_q",       "w_k",      "b_k", "w_v", "b_v",
                                        "w_o",       "b_o",       "ln1_gamma", "ln1_beta", "ln2_gamma",
                                        "ln2_beta",  "w_1",       "b_1",       "w_2",      "b_2"};
  // ReLU: every pre-activation of this request is at least 0.1 away from the
  // kink, more than any finite-difference step moves it.
  check_eval_gradients(R"({"kind": "transformer_block", "heads": 2, "causal": true, "activation": "relu",
    "x": [[-0.32, -0.63, 0.27, -0.77], [0.06, -0.24, -0.8, 0.01], [-0.83, -0.12, -0.77, -0.74]],
    "w_q": [[-0.14, 0.59, -0.68, -0.5], [0.23, 0.81, 0.14, -0.19], [0.86, -0.82, 0.65, -0.38], [-0.64, -0.69, -0.34, 0.57]],
    "b_q": [-0.32, 0.08, 0.14, -0.13],
    "w_k": [[0.09, -0.79, -0.79, -0.53], [0.32, -0.13, -0.33, 0.15], [-0.08, -0.36, 0.53, 0.36], [-0.46, 0.13, 0.05, 0.68]],
    "b_k": [0.23, -0.21, 0.48, -0.38],
    "w_v": [[-0.15, 0.46, -0.63, -0.02], [-0.83, 0.3, 0.48, 0.13], [0.68, -0.34, 0.35, 0.17], [0.14, -0.08, 0.61, 0.8]],
    "b_v": [-0.03, 0.16, -0.44, 0.2],
    "w_o": [[0.26, 0.89, 0.58, -0.39], [-0.21, 0.3, -0.86, -0.07], [-0.6, -0.69, -0.79, 0.48], [-0.67, -0.45, -0.2, 0.67]],
    "b_o": [-0.42, -0.05, 0.05, 0.38],
    "ln1_gamma": [1.32, 1.36, 0.78, 0.92], "ln1_beta": [-0.14, 0.38, 0.46, -0.35],
    "ln2_gamma": [0.68, 0.73, 0.73, 0.98], "ln2_beta": [0.09, -0.24, -0.5, -0.08],
    "w_1": [[-0.24, 0.12, 0.82], [0.34, 0.03, 0.21], [0.32, -0.8, 0.72], [0.5, 0.67, 0.54]],
    "b_1": [-0.11, -0.1, -0.4],
    "w_2": [[0.24, -0.79, -0.78, -0.52], [-0.61, -0.29, -0.81, -0.9], [-0.63, -0.72, -0.25, -0.85]],
    "b_2": [0.37, 0.11, -0.35, -0.25],
    "grad_output": [[-0.27, -0.24, -0.68, 0.63], [0.89, -0.06, -0.03, -0.75], [-0.72, -0.28, -0.42, 0.59]]})",
                       "output", all);
  check_eval_gradients(R"({"kind": "transformer_block", "norm_first": true, "activation": "gelu", "eps": 0.01,
    "x": [[0.5, -1, 2], [1, 0.5, -0.5]],
    "w_q": [[0.5, -0.2, 0.1], [0.3, 0.4, -0.5], [-0.1, 0.2, 0.6]], "b_q": [0.1, 0, -0.1],
    "w_k": [[0.2, 0.1, -0.3], [-0.4, 0.5, 0.2], [0.3, -0.1, 0.4]], "b_k": [0, 0.2, 0],
    "w_v": [[1, 0.2, 0], [0, 0.5, -0.5], [0.3, 0, 1]], "b_v": [0.1, -0.1, 0.2],
    "w_o": [[0.6, 0, 0.2], [0.1, 0.7, 0], [0, -0.3, 0.8]], "b_o": [0, 0.1, -0.1],
    "ln1_gamma": [1, 0.5, 1.5], "ln1_beta": [0.1, 0, -0.1], "ln2_gamma": [0.8, 1.2, 1], "ln2_beta": [0, 0.2, 0],
    "w_1": [[0.5, -0.5], [1, 0.3], [-0.2, 0.8]], "b_1": [0.1, -0.2],
    "w_2": [[0.4, -0.6, 0.2], [0.3, 0.5, -0.1]], "b_2": [0.05, 0, -0.05],
    "grad_output": [[1, -0.5, 0.2], [0.3, 0.7, -1]]})",
                       "output", all);
}

// ---------------------------------------------------------------- 5 warnings
TEST_CASE("eval: non-finite outputs are written as null and listed in warnings") {
  // Finite inputs whose dot product overflows float32: the score is +inf.
  const EvalResult r = eval_request(R"({"kind": "attention", "score": "dot",
    "q": [[1e20], [1]], "k": [[1e20], [2]], "v": [[1], [2]]})");
  REQUIRE(r.ok);
  const Value resp = parse_or_fail(r.response, "response");
  CHECK(resp.find("scores")->items()[0].items()[0].is_null());
  CHECK(resp.find("scores")->items()[0].items()[1].is_number());
  const Value& warnings = *resp.find("warnings");
  bool named = false;
  for (const Value& w : warnings.items()) named = named || contains(w.as_string(), "scores[0][0]");
  CHECK_MESSAGE(named, attn::json::write(warnings));
  // Every other output is still a number (the core's softmax handles +inf).
  for (const char* field : {"weights", "output"})
    for (const Value& row : resp.find(field)->items())
      for (const Value& x : row.items()) CHECK(x.is_number());
}

TEST_CASE("eval: core warnings, ignored fields and the always-present warnings array") {
  const Value clean = eval_ok(R"({"kind": "positional", "n": 1, "d": 2, "comment": "comments are allowed"})");
  REQUIRE(clean.find("warnings") != nullptr);
  CHECK(clean.find("warnings")->is_array());
  CHECK(clean.find("warnings")->size() == 0);
  CHECK(clean.members().front().key == "kind");
  CHECK(clean.members().back().key == "warnings");

  // A fully masked row: zero weights and a warning from the core.
  const Value masked = eval_ok(R"({"kind": "attention", "q": [[1], [1]], "k": [[1], [2]], "v": [[1], [2]],
    "mask": [[false, false], [true, true]], "window": 3})");
  const std::string w = attn::json::write(*masked.find("warnings"));
  CHECK(contains(w, "fully masked"));
  CHECK(contains(w, "field \\\"window\\\" was ignored"));  // window is for mode "local"
  CHECK(to_mat(*masked.find("weights")).row(0).cwiseAbs().sum() == 0.0f);

  // Hard attention: the gradient w.r.t. q and k is zero, and the response says why.
  const Value hard = eval_ok(R"({"kind": "attention", "mode": "hard", "q": [[1], [-1]], "k": [[1], [2]],
    "v": [[1], [2]], "grad_output": [[1], [1]]})");
  CHECK(to_mat(*at(hard, "grad.q")).cwiseAbs().sum() == 0.0f);
  CHECK(to_mat(*at(hard, "grad.v")).cwiseAbs().sum() == 2.0f);
  CHECK(contains(attn::json::write(*hard.find("warnings")), "mode \\\"hard\\\""));

  // c0 is only for LSTMs.
  const Value gru = eval_ok(R"({"kind": "rnn", "cell": "gru", "x": [[1]], "w_ih": [[1], [1], [1]],
    "w_hh": [[1], [1], [1]], "c0": [1]})");
  CHECK(contains(attn::json::write(*gru.find("warnings")), "c0"));
}

TEST_CASE("eval: compact and pretty responses hold the same value") {
  const std::string request = R"({"kind": "attention", "q": [[1, 0]], "k": [[1, 0], [0, 1]], "v": [[1], [2]]})";
  attn::EvalOptions compact;
  compact.pretty = false;
  const EvalResult a = eval_request(request, compact);
  const EvalResult b = eval_request(request);
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(a.response.find('\n') == std::string::npos);
  CHECK(b.response.back() == '\n');
  CHECK(parse_or_fail(a.response, "compact") == parse_or_fail(b.response, "pretty"));
  CHECK(a.error_line().empty());
}

// ---------------------------------------------------------------- 6 errors and limits
TEST_CASE("eval: invalid requests name the field and what was expected") {
  struct Case {
    const char* request;
    const char* line;  // the exact error line
  };
  const Case cases[] = {
      {R"({"kind": "attention", "q": [[1, 0, 0]], "k": [[1, 0], [0, 1]], "v": [[1], [2]]})",
       R"(field "k": expected 3 columns (same as q, for score "scaled_dot"), got 2)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1], [2]], "v": [[1]]})",
       R"(field "v": expected 2 rows (one per key: same as k), got 1)"},
      {R"({"kind": "attention", "q": [[1]], "v": [[1]]})",
       R"(field "k": missing; expected a matrix (an array of rows))"},
      {R"({"kind": "attention", "q": [1, 2], "k": [[1]], "v": [[1]]})",
       R"(field "q": expected a matrix (an array of rows), got an array of numbers; write one row as [[...]])"},
      {R"({"kind": "attention", "q": [[1, 2], [3]], "k": [[1]], "v": [[1]]})",
       R"(field "q[1]": expected 2 numbers (like row 0), got 1)"},
      {R"({"kind": "attention", "q": [[1, "2"]], "k": [[1]], "v": [[1]]})",
       R"(field "q[0][1]": expected a number, got "2")"},
      {R"({"kind": "attention", "q": [[1, 1e39]], "k": [[1]], "v": [[1]]})",
       R"(field "q[0][1]": expected a finite float32 number (magnitude below 3.4e+38), got 1e+39)"},
      {R"({"kind": "attention", "q": [], "k": [[1]], "v": [[1]]})",
       R"(field "q": expected a matrix with at least one row, got [])"},
      {R"({"kind": "attention", "q": [[]], "k": [[1]], "v": [[1]]})",
       R"(field "q[0]": expected a row with at least one number, got [])"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "score": "dott"})",
       R"(field "score": expected "dot", "scaled_dot", "general", "additive" or "cosine", got "dott")"},
      {R"({"kind": "attention", "q": [[1, 2]], "k": [[1, 2, 3]], "v": [[1]], "score": "general",
           "w": [[1, 2, 3]]})",
       R"(field "w": expected 2 rows (d_q, the columns of q), got 1)"},
      {R"({"kind": "attention", "q": [[1, 2]], "k": [[1, 2, 3]], "v": [[1]], "score": "additive",
           "w_q": [[1], [2]], "w_k": [[1], [2], [3]], "v_a": [1, 2]})",
       R"(field "v_a": expected 1 number (d_a, the columns of w_q), got 2)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "temperature": 0})",
       R"(field "temperature": expected a number > 0, got 0)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1], [2]], "v": [[1], [2]], "mask": [[true]]})",
       R"(field "mask[0]": expected 2 booleans (one per key), got 1)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "mask": [[1]]})",
       R"(field "mask[0][0]": expected true or false, got 1)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "mask": "future"})",
       R"(field "mask": expected "none", "causal" or a 1 x 1 array of rows of booleans (n_q x n_k), got "future")"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "mode": "local", "window": -1})",
       R"(field "window": expected a whole number from 0 to 1048576, got -1)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "mode": "local", "center": "predictive",
           "w_p": [[1, 2]], "v_p": [1]})",
       R"(field "v_p": expected 2 numbers (d_p, the columns of w_p), got 1)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1, 2]], "grad_output": [[1]]})",
       R"(field "grad_output": expected 2 columns (the columns of output (n_q x d_v)), got 1)"},
      {R"({"kind": "attention", "q": [[1]], "k": [[1]], "v": [[1]], "msk": "causal"})",
       R"(field "msk": unknown field for kind "attention"; expected one of: kind, q, k, v, score, w, w_q, w_k, v_a, temperature, mask, mode, hard, seed, window, center, w_p, v_p, gumbel_tau, grad_output)"},
      {R"({"kind": "self_attention", "x": [[1, 2]], "w_q": [[1, 2, 3]], "w_k": [[1]], "w_v": [[1]]})",
       R"(field "w_q": expected 2 rows (d_model, the columns of x), got 1)"},
      {R"({"kind": "self_attention", "x": [[1]], "w_q": [[1, 2, 3]], "w_k": [[1, 2, 3]], "w_v": [[1, 2, 3]],
           "heads": 2})",
       R"(field "heads": expected a divisor of 3 (the columns of w_q, h * d_h), got 2)"},
      {R"({"kind": "self_attention", "x": [[1]], "w_q": [[1, 2]], "w_k": [[1, 2]], "w_v": [[1, 2]], "heads": 2,
           "score": "general", "head_score": [{"w": [[1]]}, {"w": [[1], [2]]}]})",
       R"(field "head_score[1].w": expected 1 row (d_q, the columns of head 1's q (d_h)), got 2)"},
      {R"({"kind": "self_attention", "x": [[1]], "w_q": [[1, 2]], "w_k": [[1, 2]], "w_v": [[1, 2]],
           "w_o": [[1]]})",
       R"(field "w_o": expected 2 rows (h * d_h, the columns of w_v), got 1)"},
      {R"({"kind": "positional", "n": 3})", R"(field "d": missing; expected a whole number from 1 to 16777216)"},
      {R"({"kind": "positional", "n": 2.5, "d": 2})", R"(field "n": expected a whole number from 1 to 4096, got 2.5)"},
      {R"({"kind": "positional", "n": 2, "d": 2, "x": [[1, 2, 3], [4, 5, 6]]})",
       R"(field "x": expected 2 columns (d, for combine "sum"), got 3)"},
      {R"({"kind": "positional", "n": 2, "d": 2, "layout": "halves"})",
       R"(field "layout": expected "interleaved" or "split", got "halves")"},
      {R"({"kind": "rnn", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]]})",
       R"(field "cell": missing; expected "rnn_tanh", "lstm" or "gru")"},
      {R"({"kind": "rnn", "cell": "lstm", "x": [[1]], "w_ih": [[1]], "w_hh": [[1], [1], [1]]})",
       R"(field "w_hh": expected 4 rows (4 x H = 4 x 1 for lstm: gate blocks i, f, g, o), got 3)"},
      {R"({"kind": "rnn", "cell": "gru", "x": [[1, 2]], "w_ih": [[1], [1], [1]], "w_hh": [[1], [1], [1]]})",
       R"(field "w_ih": expected 2 columns (d_in, the columns of x), got 1)"},
      {R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]], "b_ih": [1, 2]})",
       R"(field "b_ih": expected 1 number (1 x H = 1 x 1 for rnn_tanh), got 2)"},
      {R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]], "bidirectional": true})",
       R"(field "reverse": missing; expected an object with w_ih, w_hh, b_ih, b_hh (bidirectional is true))"},
      {R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]], "bidirectional": true,
           "reverse": {"w_ih": [[1]], "w_hh": [[1, 2]]}})",
       R"(field "reverse.w_hh": expected 1 column (H, same as the forward w_hh), got 2)"},
      {R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]], "bidirectional": true,
           "reverse": {"w_ih": [[1]], "w_hh": [[1]], "bias": [1]}})",
       R"(field "reverse.bias": unknown field for "reverse"; expected one of: w_ih, w_hh, b_ih, b_hh)"},
      {R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]], "bidirectional": true,
           "reverse": {"w_ih": [[1]], "w_hh": [[1]]}, "h0": [1]})",
       R"(field "h0": expected a matrix (an array of rows), got an array of numbers; write one row as [[...]])"},
      {R"({"kind": "rnn", "cell": "rnn_tanh", "x": [[1]], "w_ih": [[1]], "w_hh": [[1]], "bidirectional": "yes"})",
       R"(field "bidirectional": expected true or false, got "yes")"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]],
           "w_o": [[1, 2]], "w_1": [[1, 2, 3], [4, 5, 6]], "w_2": [[1, 2], [3, 4]]})",
       R"(field "w_2": expected 3 rows (d_ff, the columns of w_1), got 2)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]],
           "w_o": [[1, 2], [3, 4]]})",
       R"(field "w_o": expected 1 row (h * d_h, the columns of w_q), got 2)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]], "b_1": [1, 2]})",
       R"(field "b_1": expected 1 number (d_ff, the columns of w_1), got 2)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]], "ln2_gamma": [1]})",
       R"(field "ln2_gamma": expected 2 numbers (d_model, the columns of x), got 1)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]], "b_q": [1, 1e39]})",
       R"(field "b_q[1]": expected a finite float32 number (magnitude below 3.4e+38), got 1e+39)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2, 3], [3, 4, 5]], "w_k": [[1, 2, 3], [3, 4, 5]],
           "w_v": [[1, 2, 3], [3, 4, 5]], "w_o": [[1, 2], [3, 4], [5, 6]], "w_1": [[1], [2]], "w_2": [[1, 2]],
           "heads": 2})",
       R"(field "heads": expected a divisor of 3 (the columns of w_q, h * d_h), got 2)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]],
           "activation": "tanh"})",
       R"(field "activation": expected "relu" or "gelu", got "tanh")"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]], "eps": 0})",
       R"(field "eps": expected a number > 0, got 0)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]],
           "norm_first": 1})",
       R"(field "norm_first": expected true or false, got 1)"},
      {R"({"kind": "transformer_block", "x": [[1, 2]], "w_q": [[1, 2], [3, 4]], "w_k": [[1, 2], [3, 4]],
           "w_v": [[1, 2], [3, 4]], "w_o": [[1, 2], [3, 4]], "w_1": [[1], [2]], "w_2": [[1, 2]],
           "grad_output": [[1]]})",
       R"(field "grad_output": expected 2 columns (the columns of output (n x d_model)), got 1)"},
      {R"({"kind": "transformer_block", "x": [[1]], "w_q": [[1]], "w_k": [[1]], "w_v": [[1]], "w_o": [[1]],
           "w_1": [[1]], "w_2": [[1]], "mask": "causal"})",
       R"(field "mask": unknown field for kind "transformer_block"; expected one of: kind, x, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, ln1_gamma, ln1_beta, ln2_gamma, ln2_beta, w_1, b_1, w_2, b_2, heads, norm_first, causal, activation, eps, grad_output)"},
      {R"({"kind": "transformer"})",
       R"(field "kind": expected "attention", "self_attention", "positional", "rnn", "transformer_block" or "decoder", got "transformer")"},
      {R"({"kind": 3})",
       R"(field "kind": expected "attention", "self_attention", "positional", "rnn", "transformer_block" or "decoder", got 3)"},
      {R"({"q": [[1]]})",
       R"(field "kind": missing; expected "attention", "self_attention", "positional", "rnn", "transformer_block" or "decoder")"},
      {R"([1, 2])", R"(expected a JSON object with a "kind" field, got an array)"},
      {"{\n  \"kind\": \"attention\",\n  \"q\": [[1, 2],\n         [3  4]]\n}",
       "invalid JSON: line 4, column 14: expected ',' or ']', got '4'"},
      {"", "invalid JSON: line 1, column 1: expected a value, got end of input"},
      // A field name with a newline must not break the one-line promise.
      {"{\"kind\": \"attention\", \"a\\nb\": 1}",
       R"(field "a\nb": unknown field for kind "attention"; expected one of: kind, q, k, v, score, w, w_q, w_k, v_a, temperature, mask, mode, hard, seed, window, center, w_p, v_p, gumbel_tau, grad_output)"},
  };
  for (const Case& c : cases) {
    const std::string request = c.request;
    CAPTURE(request);
    CHECK(eval_error(c.request) == c.line);
  }
}

namespace {

// With `limit` one below what `request` needs, the request is refused with
// `line`; with it at what the request needs, the request runs.
void check_limit_edge(const std::string& request, long long attn::EvalLimits::*limit, long long needed,
                      const std::string& line) {
  attn::EvalOptions options;
  options.limits.*limit = needed - 1;
  CHECK(eval_request(request, options).error_line() == line);
  options.limits.*limit = needed;
  CHECK(eval_request(request, options).ok);
}

}  // namespace

TEST_CASE("eval: absurd sizes are refused before any work") {
  // 4097 rows.
  std::string rows = "[";
  for (int i = 0; i < 4097; ++i) rows += i ? ",[0]" : "[0]";
  rows += "]";
  CHECK(eval_error(R"({"kind": "attention", "q": )" + rows + R"(, "k": [[1]], "v": [[1]]})") ==
        R"(field "q": expected at most 4096 rows, got 4097)");
  // Element limits also cover outputs sized by plain numbers.
  CHECK(eval_error(R"({"kind": "positional", "n": 4096, "d": 5000})") ==
        R"(field "d": request too large: pe (n x d) would have 20480000 numbers, more than the limit of 16777216)");
  CHECK(eval_error(R"({"kind": "positional", "n": 4097, "d": 1})") ==
        R"(field "n": expected a whole number from 1 to 4096, got 4097)");
  // Work and size limits with small custom limits (so the test stays fast).
  attn::EvalOptions tight;
  tight.limits.max_work = 20;  // this request needs 1*5*5 + 1*5*1 = 30
  const EvalResult work = eval_request(R"({"kind": "attention", "q": [[1, 2, 3, 4, 5]], "k": [[1, 2, 3, 4, 5],
    [1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], "v": [[1], [2], [3], [4], [5]]})", tight);
  REQUIRE_FALSE(work.ok);
  CHECK(work.exit_status == 2);
  CHECK(work.error.field == "q");
  CHECK(contains(work.error.message, "request too large"));
  attn::EvalOptions small;
  small.limits.max_bytes = 16;
  const EvalResult big = eval_request(R"({"kind": "positional", "n": 1, "d": 1})", small);
  REQUIRE_FALSE(big.ok);
  CHECK(big.error_line() == "invalid JSON: input is 38 bytes, more than the limit of 16 bytes");
  // The response itself is bounded: each head lists its q, k, v, scores, weights
  // and output, each (2, 2) here, then concat and output (2, 4): 2 * 6 * 4 + 2 * 8 = 64 numbers.
  const std::string two_heads = R"({"kind": "self_attention", "x": [[1, 0], [0, 1]], "heads": 2,
    "w_q": [[1, 0, 1, 0], [0, 1, 0, 1]], "w_k": [[1, 0, 1, 0], [0, 1, 0, 1]], "w_v": [[1, 0, 1, 0], [0, 1, 0, 1]]})";
  check_limit_edge(two_heads, &attn::EvalLimits::max_response_numbers, 64,
                   R"(field "x": request too large: the response would hold more than 63 numbers (every intermediate is listed; use fewer rows, columns or heads))");
  attn::EvalOptions few;
  few.limits.max_elements = 3;
  CHECK(eval_request(R"({"kind": "attention", "q": [[1, 2], [3, 4]], "k": [[1, 2]], "v": [[1]]})", few)
            .error_line() == R"(field "q": expected at most 3 numbers, got 2 x 2)");
}

TEST_CASE("eval: transformer_block counts the n^2 and feed-forward products against the work limit") {
  // n = 2, d_model = 2, h d_h = 2, d_ff = 3: 4 n d w + 2 n^2 w + 2 n d d_ff = 32 + 16 + 24 = 72.
  const std::string request = R"({"kind": "transformer_block", "x": [[1, 2], [3, 4]],
    "w_q": [[1, 0], [0, 1]], "w_k": [[1, 0], [0, 1]], "w_v": [[1, 0], [0, 1]], "w_o": [[1, 0], [0, 1]],
    "w_1": [[1, 0, 1], [0, 1, 1]], "w_2": [[1, 0], [0, 1], [1, 1]]})";
  attn::EvalOptions tight;
  tight.limits.max_work = 71;
  CHECK(eval_request(request, tight).error_line() ==
        R"(field "x": request too large: 4 n d_model h d_h + 2 n^2 h d_h + 2 n d_model d_ff = 72 multiply-adds, more than the limit of 71)");
  tight.limits.max_work = 72;
  CHECK(eval_request(request, tight).ok);
  // The hidden layer (n x d_ff) counts against the element limit: here it is
  // larger than any input matrix (2 x 3 against at most 3 numbers).
  const std::string narrow = R"({"kind": "transformer_block", "x": [[1], [2]], "w_q": [[1]], "w_k": [[1]],
    "w_v": [[1]], "w_o": [[1]], "w_1": [[1, 2, 3]], "w_2": [[1], [2], [3]]})";
  attn::EvalOptions few;
  few.limits.max_elements = 5;
  CHECK(eval_request(narrow, few).error_line() ==
        R"(field "w_1": request too large: the hidden layer (n x d_ff) would have 6 numbers, more than the limit of 5)");
}

TEST_CASE("eval: the work limit counts additive self-attention's n^2 d_a and local-p's q w_p") {
  // Self-attention, one head of width 1 over 4 rows, additive scores with d_a = 50:
  // the projections and products are 3*4*1*1 + 2*16*1 = 44 multiply-adds, the
  // scores (2*4*1 + 16) * 50 = 1200 more.
  // "[x, x, ...]": n copies of x.
  auto repeated = [](int n, const std::string& x) {
    std::string a = "[";
    for (int i = 0; i < n; ++i) a += (i ? ", " : "") + x;
    return a + "]";
  };
  const std::string row_a = repeated(50, "0.5"), v_a = repeated(50, "1");
  const std::string additive = R"({"kind": "self_attention", "x": [[1], [2], [3], [4]], "w_q": [[1]], "w_k": [[1]],
    "w_v": [[1]], "score": "additive", "head_score": [{"w_q": [)" + row_a + R"(], "w_k": [)" + row_a +
                               R"(], "v_a": )" + v_a + "}]}";
  attn::EvalOptions tight;
  tight.limits.max_work = 1000;
  const EvalResult r = eval_request(additive, tight);
  REQUIRE_FALSE(r.ok);
  CHECK(r.error.field == "x");
  CHECK(contains(r.error.message, "request too large"));
  tight.limits.max_work = 1244;
  CHECK(eval_request(additive, tight).ok);

  // local-p with d_p = 100: scoring and output 1*2*1 + 1*2*1 = 4, the centres
  // 1*1*100 + 1*100 = 200 more; q w_p is (1, 100).
  const std::string w_p = "[" + repeated(100, "0.01") + "]", v_p = repeated(100, "1");
  const std::string local_p = R"({"kind": "attention", "q": [[1]], "k": [[1], [2]], "v": [[1], [2]], "mode": "local",
    "center": "predictive", "window": 1, "w_p": )" + w_p + R"(, "v_p": )" + v_p + "}";
  tight.limits.max_work = 100;
  const EvalResult p = eval_request(local_p, tight);
  REQUIRE_FALSE(p.ok);
  CHECK(p.error.field == "w_p");
  CHECK(contains(p.error.message, "request too large"));
  tight.limits.max_work = 204;
  CHECK(eval_request(local_p, tight).ok);
  // Two queries: q w_p is (2, 100), more numbers than w_p itself.
  std::string two_queries = local_p;
  two_queries.replace(two_queries.find(R"("q": [[1]])"), 10, R"("q": [[1], [2]])");
  attn::EvalOptions few;
  few.limits.max_elements = 150;
  CHECK(eval_request(two_queries, few).error_line() ==
        R"(field "w_p": request too large: tanh(q w_p) (n_q x d_p) would have 200 numbers, more than the limit of 150)");
}

// ---------------------------------------------------------------- 7 the decoder
namespace {

// The request's field for each of the model's tensors (train::Param::name),
// written out here apart from src/cli, so that a tensor read into the wrong
// parameter shows as a difference: "block2.attention.W_Q" -> "blocks[1].w_q".
std::string decoder_field(const std::string& param) {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"embed.table", "embed"},         {"pos", "pos"},
      {"ln1.gamma", "ln1_gamma"},       {"ln1.beta", "ln1_beta"},
      {"attention.W_Q", "w_q"},         {"attention.W_K", "w_k"},
      {"attention.W_V", "w_v"},         {"attention.W_O", "w_o"},
      {"ln2.gamma", "ln2_gamma"},       {"ln2.beta", "ln2_beta"},
      {"ffn.up.W", "w_1"},              {"ffn.up.b", "b_1"},
      {"ffn.down.W", "w_2"},            {"ffn.down.b", "b_2"},
      {"final_norm.gamma", "ln_f_gamma"}, {"final_norm.beta", "ln_f_beta"},
      {"unembed.W", "w_u"},             {"unembed.b", "b_u"}};
  std::string prefix, rest = param;
  if (param.rfind("block", 0) == 0) {
    const std::size_t dot = param.find('.');
    prefix = "blocks[" + std::to_string(std::stoi(param.substr(5, dot - 5)) - 1) + "].";
    rest = param.substr(dot + 1);
  }
  for (const auto& n : names)
    if (n.first == rest) return prefix + n.second;
  FAIL("no request field for the model's tensor " << param);
  return "";
}

// LayerNorm gains and shifts and the biases are vectors in the request.
bool decoder_vector(const std::string& field) {
  return contains(field, "gamma") || contains(field, "beta") || contains(field, ".b_") || field == "b_u";
}

// A "decoder" request holding `model`'s weights and sizes (no tokens yet).
Value decoder_request(attn::train::CharLm& model) {
  const attn::train::CharLmDesc& d = model.desc();
  Value req = Value::object();
  req.set("kind", "decoder");
  Value config = Value::object();
  config.set("vocab", d.vocab);
  config.set("context", d.context);
  config.set("d_model", d.d_model);
  config.set("layers", d.layers);
  config.set("heads", d.heads);
  config.set("d_ff", d.d_ff);
  // The options of curriculum I, when not the defaults.
  const attn::train::DecoderOptions& o = d.options;
  if (o.kv_heads > 0) config.set("kv_heads", o.kv_heads);
  if (o.position != attn::train::PositionKind::learned) config.set("position", attn::train::position_kind_name(o.position));
  if (o.window > 0) config.set("window", o.window);
  if (o.sinks > 0) config.set("sinks", o.sinks);
  req.set("config", std::move(config));
  for (attn::train::Param* p : model.params()) {
    const std::string field = decoder_field(p->name);
    Value v = from_mat(p->value, decoder_vector(field));
    if (field.rfind("blocks[", 0) != 0) {
      req.set(field, std::move(v));
      continue;
    }
    if (!req.find("blocks")) {
      Value blocks = Value::array();
      for (int l = 0; l < d.layers; ++l) blocks.push(Value::object());
      req.set("blocks", std::move(blocks));
    }
    const std::size_t l = std::size_t(std::stoi(field.substr(7)));
    req.find("blocks")->items()[l].set(field.substr(field.find('.') + 1), std::move(v));
  }
  return req;
}

// A model with every weight moved off its start value (LayerNorm gains 1 and
// biases 0 would hide mistakes in their gradients).
attn::train::CharLm nudged_model(const attn::train::CharLmDesc& desc, uint64_t seed) {
  attn::train::CharLm model(desc);
  attn::Rng rng(seed);
  for (attn::train::Param* p : model.params())
    for (Eigen::Index k = 0; k < p->value.size(); ++k) p->value.data()[k] += rng.uniform(-0.3f, 0.3f);
  return model;
}

void erase_member(Value& object, const std::string& key) {
  auto& m = object.members();
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it->key == key) {
      m.erase(it);
      return;
    }
  FAIL("no field " << key);
}

Value ids(const std::vector<int>& v) {
  Value a = Value::array();
  for (int x : v) a.push(x);
  return a;
}

Value id_batch(const std::vector<std::vector<int>>& seqs) {
  Value a = Value::array();
  for (const std::vector<int>& s : seqs) a.push(ids(s));
  return a;
}

// Every gradient of the response against the model's own (after its
// forward_backward), bit for bit.
void check_decoder_grads(const Value& resp, attn::train::CharLm& model) {
  for (attn::train::Param* p : model.params()) {
    const std::string field = decoder_field(p->name);
    CAPTURE(field);
    const Value* g = at(resp, "grad." + field);
    REQUIRE(g != nullptr);
    CHECK(to_mat(*g) == p->grad);
  }
}

attn::train::CharLmDesc lm_desc(int vocab, int context, int d_model, int layers, int heads, int d_ff) {
  attn::train::CharLmDesc d;
  d.vocab = vocab;
  d.context = context;
  d.d_model = d_model;
  d.layers = layers;
  d.heads = heads;
  d.d_ff = d_ff;
  return d;
}

std::vector<std::string> keys_of(const Value& object) {
  std::vector<std::string> keys;
  for (const auto& m : object.members()) keys.push_back(m.key);
  return keys;
}

}  // namespace

TEST_CASE("eval: decoder gives the model's own logits, attention, loss and gradients, bit for bit") {
  attn::train::CharLm model = nudged_model(lm_desc(6, 5, 8, 2, 2, 12), 11);
  // Two training windows of different lengths: the loss is the mean over 5 + 2 predictions.
  std::vector<attn::data::TextWindow> set(2);
  set[0].tokens = {1, 4, 2, 5, 0, 3};
  set[1].tokens = {3, 0, 3};
  const float loss = model.forward_backward(set, {0, 1});
  Value req = decoder_request(model);
  req.set("tokens", id_batch({{1, 4, 2, 5, 0}, {3, 0}}));
  req.set("targets", id_batch({{4, 2, 5, 0, 3}, {0, 3}}));
  const Value resp = eval_ok(attn::json::write(req));
  CHECK(keys_of(resp) == std::vector<std::string>{"kind", "logits", "attention", "loss", "grad", "warnings"});
  CHECK(float(resp.find("loss")->as_number()) == loss);
  check_decoder_grads(resp, model);
  for (std::size_t s = 0; s < 2; ++s) {
    CAPTURE(s);
    const std::vector<int> seq(set[s].tokens.begin(), set[s].tokens.end() - 1);
    CHECK(to_mat(resp.find("logits")->items()[s]) == model.logits(seq));
    const std::vector<std::vector<Mat>> weights = model.attention(seq);
    const Value& layers = resp.find("attention")->items()[s];
    REQUIRE(layers.size() == 2);
    for (std::size_t l = 0; l < 2; ++l) {
      REQUIRE(layers.items()[l].size() == 2);
      for (std::size_t h = 0; h < 2; ++h) CHECK(to_mat(layers.items()[l].items()[h]) == weights[l][h]);
    }
  }

  // One sequence: the response drops the batch level; the numbers are those of
  // the sequence trained alone.
  const float alone = model.forward_backward(set, {1});
  req.set("tokens", ids({3, 0}));
  req.set("targets", ids({0, 3}));
  const Value one = eval_ok(attn::json::write(req));
  CHECK(float(one.find("loss")->as_number()) == alone);
  check_decoder_grads(one, model);
  CHECK(to_mat(*one.find("logits")) == model.logits({3, 0}));
  CHECK(to_mat(at(one, "attention[1]")->items()[0]) == model.attention({3, 0})[1][0]);

  // Without targets: logits and attention only.
  erase_member(req, "targets");
  const Value plain = eval_ok(attn::json::write(req));
  CHECK(keys_of(plain) == std::vector<std::string>{"kind", "logits", "attention", "warnings"});
}

TEST_CASE("eval: decoder gradients match finite differences of the loss (every weight, a batch, free targets)") {
  // One block: each finite difference is a whole request and response (about
  // 2 ms natively, mostly writing numbers), and the bit-for-bit case above
  // already ties every tensor of two blocks to the model's own gradients.
  attn::train::CharLm model = nudged_model(lm_desc(4, 3, 4, 1, 2, 3), 21);
  Value req = decoder_request(model);
  // Targets of the learner's own choosing (not the tokens shifted by one).
  req.set("tokens", id_batch({{0, 3, 1}, {2, 1}}));
  req.set("targets", id_batch({{3, 3, 2}, {0, 1}}));
  std::vector<std::string> params;
  for (attn::train::Param* p : model.params()) params.push_back(decoder_field(p->name));
  CHECK(params.size() == 2 + 12 + 4);
  // A step of 1e-3, not the default 1e-2: LayerNorm over 4 columns bends
  // sharply, and at 1e-2 the embeddings' differences are off by up to 12%. The
  // loss is read back as a float32, about 1e-4 of noise at this step.
  check_eval_gradients_of(
      attn::json::write(req), [](const Value& response) { return response.find("loss")->as_number(); }, params,
      {1e-3f, 2e-2, 2e-3});
}

namespace {

// The smallest model the errors need: 3 characters, context 2, d_model 2, one
// block of one head, d_ff 1; two tokens and their targets.
const char* const kDecoderBase = R"({"kind": "decoder",
  "config": {"vocab": 3, "context": 2, "d_model": 2, "layers": 1, "heads": 1, "d_ff": 1},
  "tokens": [0, 2], "targets": [2, 1],
  "embed": [[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], "pos": [[0.1, 0], [0, 0.1]],
  "blocks": [{"ln1_gamma": [1, 1], "ln1_beta": [0, 0], "w_q": [[1, 0], [0, 1]], "w_k": [[1, 0], [0, 1]],
              "w_v": [[1, 0], [0, 1]], "w_o": [[1, 0], [0, 1]], "ln2_gamma": [1, 1], "ln2_beta": [0, 0],
              "w_1": [[0.5], [-0.5]], "b_1": [0], "w_2": [[1, -1]], "b_2": [0, 0]}],
  "ln_f_gamma": [1, 1], "ln_f_beta": [0, 0], "w_u": [[1, 0, -1], [0, 1, 1]], "b_u": [0, 0, 0]})";

// kDecoderBase with each field at `path` set to the JSON `value`, or removed
// when `value` is empty.
std::string decoder_with(std::initializer_list<std::pair<std::string, std::string>> edits) {
  Value req = parse_or_fail(kDecoderBase, "kDecoderBase");
  for (const auto& e : edits) {
    const std::size_t dot = e.first.rfind('.');
    Value* parent = dot == std::string::npos ? &req : at(req, e.first.substr(0, dot));
    REQUIRE(parent != nullptr);
    const std::string key = dot == std::string::npos ? e.first : e.first.substr(dot + 1);
    if (e.second.empty()) erase_member(*parent, key);
    else parent->set(key, parse_or_fail(e.second, e.first));
  }
  return attn::json::write(req);
}

// kDecoderBase with the text `from` replaced by `to` (for what a parsed Value
// cannot hold, such as 1e39).
std::string decoder_replaced(const std::string& from, const std::string& to) {
  std::string text = kDecoderBase;
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("eval: decoder requests that are wrong name the field and what was expected") {
  eval_ok(kDecoderBase);
  struct Case {
    const char* path;
    const char* value;  // "": the field removed
    const char* line;
  };
  const Case cases[] = {
      // Missing tensors and fields.
      {"blocks[0].w_v", "", R"(field "blocks[0].w_v": missing; expected a matrix (an array of rows))"},
      {"ln_f_beta", "", R"(field "ln_f_beta": missing; expected a vector (an array of numbers))"},
      {"embed", "", R"(field "embed": missing; expected a matrix (an array of rows))"},
      {"config", "",
       R"(field "config": missing; expected an object with vocab, context, d_model, layers, heads, d_ff)"},
      {"config.d_ff", "", R"(field "config.d_ff": missing; expected a whole number from 1 to 4096)"},
      {"tokens", "",
       R"(field "tokens": missing; expected an array of token ids, or an array of such arrays (a batch))"},
      // Shapes, against the config.
      {"embed", "[[1, 2], [3, 4]]", R"(field "embed": expected 3 rows (config.vocab), got 2)"},
      {"pos", "[[1, 2, 3], [4, 5, 6]]", R"(field "pos": expected 2 columns (config.d_model), got 3)"},
      {"blocks[0].w_1", "[[1, 2], [3, 4]]", R"(field "blocks[0].w_1": expected 1 column (config.d_ff), got 2)"},
      {"blocks[0].w_2", "[[1, 2], [3, 4]]", R"(field "blocks[0].w_2": expected 1 row (config.d_ff), got 2)"},
      {"b_u", "[0, 0]", R"(field "b_u": expected 3 numbers (config.vocab), got 2)"},
      {"blocks[0].ln2_gamma", "[[1, 1]]",
       R"(field "blocks[0].ln2_gamma[0]": expected a number, got an array)"},
      {"w_u", "[1, 2, 3]",
       R"(field "w_u": expected a matrix (an array of rows), got an array of numbers; write one row as [[...]])"},
      {"w_u", "[[1, 0, -1], [0, 1]]", R"(field "w_u[1]": expected 3 numbers (like row 0), got 2)"},
      {"blocks", "[]", R"(field "blocks": expected 1 object (config.layers), got 0)"},
      {"blocks", "{}",
       R"(field "blocks": expected an array of 1 object (config.layers), one per block, got an object)"},
      // Lengths and token ids.
      {"tokens", "[0, 1, 2]",
       R"(field "tokens": expected at most 2 token ids (config.context, the rows of pos), got 3)"},
      {"tokens", "[]",
       R"(field "tokens": expected an array of token ids (whole numbers from 0 to 2), got [] (an empty array))"},
      {"tokens", "[0, 3]", R"(field "tokens[1]": expected a whole number from 0 to 2, got 3)"},
      {"tokens", "[0, -1]", R"(field "tokens[1]": expected a whole number from 0 to 2, got -1)"},
      {"tokens", "[0.5]", R"(field "tokens[0]": expected a whole number from 0 to 2, got 0.5)"},
      {"tokens", "[[0, 1], [2, 2, 2]]",
       R"(field "tokens[1]": expected at most 2 token ids (config.context, the rows of pos), got 3)"},
      {"targets", "[1]", R"(field "targets": expected 2 token ids (one per token of tokens), got 1)"},
      {"targets", "[1, 5]", R"(field "targets[1]": expected a whole number from 0 to 2, got 5)"},
      {"targets", "[[1, 2]]", R"(field "targets": expected one sequence like tokens (an array of ids), got a batch)"},
      // Values: every number a finite float32 (JSON cannot write NaN; 1e39 overflows).
      {"pos", "[[0, \"x\"], [0, 0]]", R"(field "pos[0][1]": expected a number, got "x")"},
      // The config and its caps.
      {"config.vocab", "4097", R"(field "config.vocab": expected a whole number from 1 to 4096, got 4097)"},
      {"config.layers", "65", R"(field "config.layers": expected a whole number from 1 to 64, got 65)"},
      {"config.heads", "3", R"(field "config.heads": expected a whole number from 1 to 2, got 3)"},
      {"config", R"({"vocab": 3, "context": 2, "d_model": 6, "layers": 1, "heads": 4, "d_ff": 1})",
       R"(field "config.heads": expected a divisor of 6 (config.d_model), got 4)"},
      {"config", R"({"vocab": 4096, "context": 4096, "d_model": 4096, "layers": 64, "heads": 1, "d_ff": 4096})",
       R"(field "config": request too large: the weights would have 6494367744 numbers, more than the limit of 16777216)"},
      {"config", "[3, 2, 2, 1, 1, 1]",
       R"(field "config": expected an object with vocab, context, d_model, layers, heads, d_ff, got an array)"},
      // Unknown fields, at each level.
      {"logits", "[[0]]",
       R"(field "logits": unknown field for kind "decoder"; expected one of: kind, config, tokens, targets, cache, embed, pos, blocks, ln_f_gamma, ln_f_beta, w_u, b_u)"},
      {"config.dmodel", "2",
       R"(field "config.dmodel": unknown field for "config"; expected one of: vocab, context, d_model, layers, heads, d_ff, kv_heads, position, window, sinks)"},
      {"blocks[0].b_q", "[0, 0]",
       R"(field "blocks[0].b_q": unknown field for "blocks[0]"; expected one of: ln1_gamma, ln1_beta, w_q, w_k, w_v, w_o, ln2_gamma, ln2_beta, w_1, b_1, w_2, b_2)"},
  };
  for (const Case& c : cases) {
    const std::string edit = std::string(c.path) + " = " + c.value;
    CAPTURE(edit);
    CHECK(eval_error(decoder_with({{c.path, c.value}})) == c.line);
  }
  // Values: every number a finite float32. 1e39 is valid JSON but overflows a
  // float32; JSON cannot write NaN or infinity at all.
  CHECK(eval_error(decoder_replaced("[[1, 0, -1], [0, 1, 1]]", "[[1, 0, -1], [1e39, 1, 1]]")) ==
        R"(field "w_u[1][0]": expected a finite float32 number (magnitude below 3.4e+38), got 1e+39)");
  CHECK(eval_error(decoder_replaced(R"("b_1": [0])", R"("b_1": [-1e39])")) ==
        R"(field "blocks[0].b_1[0]": expected a finite float32 number (magnitude below 3.4e+38), got -1e+39)");
  CHECK(eval_error(decoder_replaced(R"("b_u": [0, 0, 0])", R"("b_u": [0, NaN, 0])")) ==
        "invalid JSON: line 8, column 89: expected a value, got 'N'");
}

TEST_CASE("eval: decoder sizes count against the work, element and response limits") {
  // n = 2, d_model = 2, d_ff = 1, vocab 3, one layer:
  // 4 n d^2 + 2 n^2 d + 2 n d d_ff + n d vocab = 32 + 16 + 8 + 12 = 68.
  check_limit_edge(kDecoderBase, &attn::EvalLimits::max_work, 68,
                   R"(field "tokens": request too large: the sum over the sequences of layers (4 n d_model^2 + 2 n^2 d_model + 2 n d_model d_ff) + n d_model vocab = 68 multiply-adds, more than the limit of 67)");
  // A batch of two such sequences costs twice as much.
  check_limit_edge(decoder_with({{"tokens", "[[0, 2], [1, 1]]"}, {"targets", ""}}), &attn::EvalLimits::max_work, 136,
                   R"(field "tokens": request too large: the sum over the sequences of layers (4 n d_model^2 + 2 n^2 d_model + 2 n d_model d_ff) + n d_model vocab = 136 multiply-adds, more than the limit of 135)");
  // The model's weights: 3 x 2 + 2 x 2 + (4 x 4 + 2 x 2 + 1 + 5 x 2) + 2 x 2 + 2 x 3 + 3 = 54 numbers.
  check_limit_edge(kDecoderBase, &attn::EvalLimits::max_elements, 54,
                   R"(field "config": request too large: the weights would have 54 numbers, more than the limit of 53)");
  // The row limit caps every size of the config.
  check_limit_edge(kDecoderBase, &attn::EvalLimits::max_rows, 3,
                   R"(field "config.vocab": expected a whole number from 1 to 2, got 3)");
  // The response: logits 2 x 3, attention 1 x 1 x 2 x 2, the loss, then the 54 gradients.
  check_limit_edge(kDecoderBase, &attn::EvalLimits::max_response_numbers, 6 + 4 + 1 + 54,
                   R"(field "tokens": request too large: the response would hold more than 64 numbers (every intermediate is listed; use fewer rows, columns or heads))");
}

TEST_CASE("eval: decoder logits and loss that overflow are written as null and named in warnings") {
  // Final gains of 3e38 put the logits past float32's range.
  const Value resp = eval_ok(decoder_with({{"ln_f_gamma", "[3e38, 3e38]"}}));
  CHECK(resp.find("loss")->is_null());
  const std::string warnings = attn::json::write(*resp.find("warnings"));
  CHECK(contains(warnings, "logits[1][2] is not finite"));
  CHECK(contains(warnings, "loss is not finite (written as null)"));
}

// ---------------------------------------------------------------- the decoder's options (curriculum I)
namespace {
attn::train::CharLmDesc with_options(attn::train::CharLmDesc d, int kv, attn::train::PositionKind p, int window,
                                     int sinks) {
  d.options.kv_heads = kv;
  d.options.position = p;
  d.options.window = window;
  d.options.sinks = sinks;
  return d;
}
}  // namespace

TEST_CASE("eval: decoder options give the model's own logits, attention, loss and gradients, and the cache the same logits") {
  using attn::train::PositionKind;
  const attn::train::CharLmDesc base = lm_desc(6, 4, 8, 2, 4, 12);
  const attn::train::CharLmDesc descs[] = {
      with_options(base, 2, PositionKind::rope, 3, 1), with_options(base, 1, PositionKind::alibi, 0, 0),
      with_options(base, 0, PositionKind::sinusoidal, 2, 0), with_options(base, 4, PositionKind::none, 0, 0),
      with_options(base, 2, PositionKind::learned, 3, 2)};
  for (const attn::train::CharLmDesc& d : descs) {
    CAPTURE(std::string(attn::train::position_kind_name(d.options.position)));
    attn::train::CharLm model = nudged_model(d, 13);
    const bool learned = d.options.position == PositionKind::learned;
    // Past the context (4) where the kind reads on.
    const std::vector<int> seq = learned ? std::vector<int>{1, 4, 2, 5} : std::vector<int>{1, 4, 2, 5, 0, 3, 3};
    std::vector<int> next(seq.begin() + 1, seq.end());
    next.push_back(2);
    Value req = decoder_request(model);
    CHECK((req.find("pos") != nullptr) == learned);
    req.set("tokens", ids(seq));
    req.set("targets", ids(next));
    const Value resp = eval_ok(attn::json::write(req));
    zero_grads(model.params());
    const double total = model.sequences_gradient({seq}, {next}, 1.0f / float(seq.size()));
    CHECK(float(resp.find("loss")->as_number()) == float(total / double(seq.size())));
    check_decoder_grads(resp, model);
    CHECK(to_mat(*resp.find("logits")) == model.logits(seq));
    CHECK(to_mat(at(resp, "attention[1]")->items()[3]) == model.attention(seq)[1][3]);
    // The cache: the same logits, row by row, and what it holds.
    req.set("cache", true);
    const Value cached = eval_ok(attn::json::write(req));
    CHECK(to_mat(*cached.find("logits")) == model.logits(seq));
    const int kv = model.kv_heads(), held = d.options.window > 0 ? std::min<int>(int(seq.size()), d.options.sinks + d.options.window)
                                                                  : int(seq.size());
    CHECK(at(cached, "cache.entries")->as_number() == held);
    CHECK(at(cached, "cache.bytes")->as_number() == 4.0 * 2 * held * 2 * kv * 2);  // 2 layers, key and value, d_h 2
  }
}

TEST_CASE("eval: decoder option gradients match finite differences (rope, one key/value head, a window with a sink)") {
  attn::train::CharLm model =
      nudged_model(with_options(lm_desc(4, 3, 4, 1, 2, 3), 1, attn::train::PositionKind::rope, 2, 1), 23);
  Value req = decoder_request(model);
  req.set("tokens", id_batch({{0, 3, 1, 2}, {2, 1}}));  // the first runs past the context
  req.set("targets", id_batch({{3, 3, 2, 0}, {0, 1}}));
  std::vector<std::string> params;
  for (attn::train::Param* p : model.params()) params.push_back(decoder_field(p->name));
  CHECK(params.size() == 1 + 12 + 4);  // no pos
  check_eval_gradients_of(
      attn::json::write(req), [](const Value& response) { return response.find("loss")->as_number(); }, params,
      {1e-3f, 2e-2, 2e-3});
}

TEST_CASE("eval: decoder options that do not fit are refused, each with its field and what was expected") {
  struct Case {
    std::initializer_list<std::pair<std::string, std::string>> edits;
    const char* line;
  };
  const Case cases[] = {
      {{{"config.heads", "2"}, {"config.d_model", "2"}, {"config.kv_heads", "3"}},
       R"(field "config.kv_heads": expected a whole number from 1 to 2, got 3)"},
      {{{"config", R"({"vocab": 3, "context": 2, "d_model": 6, "layers": 1, "heads": 3, "d_ff": 1, "kv_heads": 2})"}},
       R"(field "config.kv_heads": expected a divisor of 3 (config.heads), got 2)"},
      {{{"config.position", R"("Rope")"}},
       R"(field "config.position": expected "learned", "sinusoidal", "rope", "alibi" or "none", got "Rope")"},
      {{{"config.position", "3"}},
       R"(field "config.position": expected "learned", "sinusoidal", "rope", "alibi" or "none", got 3)"},
      {{{"config.window", "-1"}}, R"(field "config.window": expected a whole number from 0 to 4096, got -1)"},
      {{{"config.window", "1"}, {"config.sinks", "2"}}, R"(field "config.sinks": expected at most 1 (config.window), got 2)"},
      {{{"config.sinks", "1"}},
       R"(field "config.sinks": expected 0: sinks stay visible beside a window, and config.window is 0 (every key visible), got 1)"},
      {{{"config.heads", "2"}, {"config.position", R"("rope")"}},
       R"(field "config.position": "rope" turns pairs of columns: expected an even head size, got 1 (config.d_model / config.heads))"},
      {{{"pos", ""}}, R"(field "pos": missing; expected a matrix (an array of rows) for config.position "learned")"},
      {{{"config.position", R"("alibi")"}},
       R"(field "pos": expected no table: only position "learned" has weights for its positions (config.position is "alibi"))"},
      {{{"tokens", "[0, 1, 2]"}, {"targets", ""}},
       R"(field "tokens": expected at most 2 token ids (config.context, the rows of pos), got 3)"},
      {{{"cache", R"("yes")"}}, R"(field "cache": expected true or false, got "yes")"},
      {{{"config", R"({"vocab": 3, "context": 2, "d_model": 2, "layers": 1, "heads": 1, "d_ff": 1, "kv_heads": 1})"},
        {"blocks[0].w_k", "[[1], [0]]"}},
       R"(field "blocks[0].w_k": expected 2 columns (config.d_model), got 1)"},
  };
  for (const Case& c : cases) {
    std::string edit;
    for (const auto& e : c.edits) edit += e.first + " = " + e.second + "; ";
    CAPTURE(edit);
    CHECK(eval_error(decoder_with(c.edits)) == c.line);
  }
  // Past the context where the kind reads on: accepted, with every row's logits.
  const Value ok = eval_ok(decoder_with({{"config.position", R"("none")"}, {"pos", ""}, {"tokens", "[0, 1, 2, 2, 1]"},
                                         {"targets", "[1, 2, 2, 1, 0]"}, {"cache", "true"}}));
  CHECK(ok.find("logits")->size() == 5);
  CHECK(at(ok, "cache.entries")->as_number() == 5);
  CHECK(at(ok, "cache.capacity")->as_number() == 0);
}
