// demos.cpp: the demo registry. Sections: 1 shared checks, 2 qkv_basic, 3 registry.
#include "core/demos.h"

#include <cmath>

#include "core/attention.h"

namespace attn {
namespace {

// ---------------------------------------------------------------- 1 shared checks
std::vector<std::string> split_tokens(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t bar = s.find('|', pos);
    if (bar == std::string::npos) bar = s.size();
    std::string t = s.substr(pos, bar - pos);
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
    while (!t.empty() && t.back() == ' ') t.pop_back();
    out.push_back(t);
    pos = bar + 1;
  }
  return out;
}

const LessonValue* need(const std::map<std::string, LessonValue>& p, const char* name, LessonValue::Kind kind,
                        std::vector<DemoIssue>& issues) {
  auto it = p.find(name);
  if (it == p.end()) {
    issues.push_back({0, std::string("missing parameter '") + name + "'"});
    return nullptr;
  }
  if (it->second.kind != kind) {
    const char* what = kind == LessonValue::Kind::matrix ? "a matrix like [[1, 0], [0, 1]]"
                       : kind == LessonValue::Kind::number ? "a number" : "text";
    issues.push_back({it->second.line, std::string("'") + name + "' must be " + what});
    return nullptr;
  }
  return &it->second;
}

void only_known(const std::map<std::string, LessonValue>& p, const std::vector<std::string>& known,
                std::vector<DemoIssue>& issues) {
  for (const auto& [name, v] : p) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == name;
    if (!ok) issues.push_back({v.line, "unknown parameter '" + name + "' for this demo"});
  }
}

bool all_finite(const Mat& m) { return m.allFinite(); }

// ---------------------------------------------------------------- 2 qkv_basic
// Self-attention with the numbers laid bare: each token i has a query q_i, a key
// k_i and a value v_i; scores s_ij = score(q_i, k_j), weights = softmax by row,
// output b_i = sum_j w_ij v_j.
std::vector<DemoIssue> check_qkv_basic(const std::map<std::string, LessonValue>& p) {
  std::vector<DemoIssue> issues;
  only_known(p, {"tokens", "q", "k", "v", "score"}, issues);
  const LessonValue* tokens = need(p, "tokens", LessonValue::Kind::text, issues);
  const LessonValue* q = need(p, "q", LessonValue::Kind::matrix, issues);
  const LessonValue* k = need(p, "k", LessonValue::Kind::matrix, issues);
  const LessonValue* v = need(p, "v", LessonValue::Kind::matrix, issues);
  if (!issues.empty()) return issues;
  const auto n = Eigen::Index(split_tokens(tokens->text).size());
  if (q->matrix.rows() != n) issues.push_back({q->line, "'q' needs one row per token (" + std::to_string(n) + ")"});
  if (k->matrix.rows() != n) issues.push_back({k->line, "'k' needs one row per token (" + std::to_string(n) + ")"});
  if (v->matrix.rows() != n) issues.push_back({v->line, "'v' needs one row per token (" + std::to_string(n) + ")"});
  if (k->matrix.cols() != q->matrix.cols())
    issues.push_back({k->line, "'k' must have as many columns as 'q' (" + std::to_string(q->matrix.cols()) + ")"});
  if (auto it = p.find("score"); it != p.end()) {
    ScoreKind kind;
    if (!parse_score_kind(it->second.text, &kind) || (kind != ScoreKind::dot && kind != ScoreKind::scaled_dot &&
                                                      kind != ScoreKind::cosine))
      issues.push_back({it->second.line, "'score' must be dot, scaled_dot or cosine"});
  }
  return issues;
}

DemoOutputs run_qkv_basic(const DemoInputs& in) {
  DemoOutputs out;
  const Mat& Q = in.mats.at("q");
  const Mat& K = in.mats.at("k");
  const Mat& V = in.mats.at("v");
  if (!all_finite(Q) || !all_finite(K) || !all_finite(V)) {
    out.error = "a value is not a finite number";
    return out;
  }
  AttentionDesc desc;
  desc.score = ScoreKind::dot;
  if (auto it = in.settings.find("score"); it != in.settings.end()) parse_score_kind(it->second, &desc.score);
  AttentionResult r = attention_forward(Q, K, V, desc, {});
  if (!r.ok()) {
    out.error = r.error;
    return out;
  }
  out.mats["scores"] = std::move(r.scores);    // (n, n)
  out.mats["weights"] = std::move(r.weights);  // (n, n)
  out.mats["output"] = std::move(r.output);    // (n, d_v)
  out.warnings = std::move(r.warnings);
  return out;
}

// ---------------------------------------------------------------- 3 registry
struct DemoEntry {
  const char* name;
  std::vector<DemoIssue> (*check)(const std::map<std::string, LessonValue>&);
  DemoOutputs (*run)(const DemoInputs&);
  std::vector<std::string> editable;
};

const std::vector<DemoEntry>& registry() {
  static const std::vector<DemoEntry> r = {
      {"qkv_basic", check_qkv_basic, run_qkv_basic, {"q", "k", "v"}},
  };
  return r;
}

const DemoEntry* find(const std::string& name) {
  for (const auto& e : registry())
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace

std::vector<DemoIssue> check_demo_params(const std::string& demo, const std::map<std::string, LessonValue>& params) {
  const DemoEntry* e = find(demo);
  if (!e) return {{0, "unknown demo '" + demo + "'"}};
  return e->check(params);
}

DemoInputs demo_defaults(const LessonStep& step) {
  DemoInputs in;
  for (const auto& [name, v] : step.params) {
    if (v.kind == LessonValue::Kind::matrix) in.mats[name] = v.matrix;
    else if (name == "tokens") in.tokens = split_tokens(v.text);
    else in.settings[name] = v.text;
  }
  return in;
}

DemoOutputs run_demo(const std::string& demo, const DemoInputs& in) {
  const DemoEntry* e = find(demo);
  if (!e) return {{}, {}, "unknown demo '" + demo + "'"};
  for (const auto& name : e->editable)
    if (!in.mats.count(name)) return {{}, {}, "missing input '" + name + "'"};
  return e->run(in);
}

std::vector<std::string> demo_editable(const std::string& demo) {
  const DemoEntry* e = find(demo);
  return e ? e->editable : std::vector<std::string>{};
}

}  // namespace attn
