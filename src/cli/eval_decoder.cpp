// eval_decoder.cpp: kind "decoder" of `attnlab eval` -- the whole character
// language model of curriculum H (train/char_lm.h) with every weight given:
// its logits and per-layer attention weights for one token sequence or a
// batch, and, given targets, the training loss and the gradient of every
// weight from the model's own backward pass. The config may name the options
// of curriculum I (kv_heads, position, window, sinks), and "cache": true
// computes the logits one token at a time with a key/value cache
// (train/char_lm_cache.h). Fields are checked with the
// request's names like the other kinds (eval_fields.h): the config and its
// caps first, then lengths, then each tensor's shape, then its numbers.
//
// Sections: 1 the model's tensors, 2 the config, 3 token ids, 4 the weights,
// 5 running the model, 6 the kind.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/eval_fields.h"
#include "train/char_lm.h"
#include "train/char_lm_cache.h"

namespace attn::eval_detail {

namespace {

using train::CharLm;
using train::Param;

// ---------------------------------------------------------------- 1 the model's tensors
// The sizes a tensor's shape is made of.
enum class Size { one, vocab, context, d_model, d_ff, kv_width };

// One tensor: its field in the request and in "grad", the model's name for it
// (train::Param::name; a block's get the prefix "block<l+1>."), whether the
// request writes it as a vector (a (1, m) row in the model), and its shape.
struct Tensor {
  const char* field;
  const char* param;
  bool vector;
  Size rows, cols;
};

// In the model's order (CharLm::collect): before the blocks, each block's, after.
const std::vector<Tensor> kBefore = {
    {"embed", "embed.table", false, Size::vocab, Size::d_model},
    {"pos", "pos", false, Size::context, Size::d_model},
};
const std::vector<Tensor> kBlock = {
    {"ln1_gamma", "ln1.gamma", true, Size::one, Size::d_model},
    {"ln1_beta", "ln1.beta", true, Size::one, Size::d_model},
    {"w_q", "attention.W_Q", false, Size::d_model, Size::d_model},
    {"w_k", "attention.W_K", false, Size::d_model, Size::kv_width},
    {"w_v", "attention.W_V", false, Size::d_model, Size::kv_width},
    {"w_o", "attention.W_O", false, Size::d_model, Size::d_model},
    {"ln2_gamma", "ln2.gamma", true, Size::one, Size::d_model},
    {"ln2_beta", "ln2.beta", true, Size::one, Size::d_model},
    {"w_1", "ffn.up.W", false, Size::d_model, Size::d_ff},
    {"b_1", "ffn.up.b", true, Size::one, Size::d_ff},
    {"w_2", "ffn.down.W", false, Size::d_ff, Size::d_model},
    {"b_2", "ffn.down.b", true, Size::one, Size::d_model},
};
const std::vector<Tensor> kAfter = {
    {"ln_f_gamma", "final_norm.gamma", true, Size::one, Size::d_model},
    {"ln_f_beta", "final_norm.beta", true, Size::one, Size::d_model},
    {"w_u", "unembed.W", false, Size::d_model, Size::vocab},
    {"b_u", "unembed.b", true, Size::one, Size::vocab},
};

std::string block_path(long long l) { return "blocks[" + std::to_string(l) + "]"; }
// "expected 3 rows (config.vocab), got 2".
std::string expected_count(long long n, const char* noun, const std::string& why, long long got) {
  return "expected " + count(n, noun) + " (" + why + "), got " + std::to_string(got);
}
std::string block_param(long long l) { return "block" + std::to_string(l + 1) + "."; }

// ---------------------------------------------------------------- 2 the config
// Far deeper than the lab's model (2 layers); the weights' total is capped
// apart from it, by the element limit.
constexpr long long kMaxLayers = 64;

struct Config {
  long long vocab = 0, context = 0, d_model = 0, layers = 0, heads = 0, d_ff = 0;
  long long kv_heads = 0, window = 0, sinks = 0;  // kv_heads: heads when not given
  train::PositionKind position = train::PositionKind::learned;

  long long kv_width() const { return kv_heads * (d_model / heads); }
  bool learned() const { return position == train::PositionKind::learned; }
  // The tensors of this model: "pos" only with a learned table.
  bool has(const Tensor& t) const { return learned() || std::string(t.field) != "pos"; }
  long long size(Size s) const {
    switch (s) {
      case Size::one: return 1;
      case Size::vocab: return vocab;
      case Size::context: return context;
      case Size::d_model: return d_model;
      case Size::d_ff: return d_ff;
      case Size::kv_width: return kv_width();
    }
    return 0;
  }
  // Where a size comes from, for the messages.
  std::string why(Size s) const {
    switch (s) {
      case Size::one: return "";
      case Size::vocab: return "config.vocab";
      case Size::context: return "config.context";
      case Size::d_model: return "config.d_model";
      case Size::d_ff: return "config.d_ff";
      case Size::kv_width:
        return kv_heads == heads ? "config.d_model" : "config.kv_heads x config.d_model / config.heads";
    }
    return "";
  }
  // Every number of the model: what it allocates twice (values and gradients).
  double weight_count() const {
    const double V = double(vocab), C = learned() ? double(context) : 0.0, d = double(d_model), F = double(d_ff),
                 kvd = double(kv_width());
    return V * d + C * d + double(layers) * (2 * d * d + 2 * d * kvd + 2 * d * F + F + 5 * d) + 2 * d + d * V + V;
  }
  train::CharLmDesc desc() const {
    train::CharLmDesc d;
    d.vocab = int(vocab);
    d.context = int(context);
    d.d_model = int(d_model);
    d.layers = int(layers);
    d.heads = int(heads);
    d.d_ff = int(d_ff);
    d.options.kv_heads = int(kv_heads);
    d.options.position = position;
    d.options.window = int(window);
    d.options.sinks = int(sinks);
    return d;
  }
};

const char* const kConfigFields = "vocab, context, d_model, layers, heads, d_ff";

// The options of curriculum I, all optional (the defaults: the lab's model):
// kv_heads (a divisor of heads), position, window (0: every earlier key) and
// sinks (at most the window). Read after the sizes they depend on.
bool read_options(Fields& cf, Config* c) {
  Ctx& ctx = cf.ctx();
  if (!read_integer(cf, "kv_heads", 1, c->heads, c->heads, &c->kv_heads, false)) return false;
  if (c->heads % c->kv_heads != 0)
    return ctx.fail(cf.path("kv_heads"), "expected a divisor of " + std::to_string(c->heads) +
                                             " (config.heads), got " + std::to_string(c->kv_heads));
  if (!read_choice(cf, "position", {"learned", "sinusoidal", "rope", "alibi", "none"}, train::PositionKind::learned,
                   &c->position, train::parse_position_kind))
    return false;
  const long long dh = c->d_model / c->heads;
  if (c->position == train::PositionKind::rope && dh % 2 != 0)
    return ctx.fail(cf.path("position"), "\"rope\" turns pairs of columns: expected an even head size, got " +
                                             std::to_string(dh) + " (config.d_model / config.heads)");
  if (!read_integer(cf, "window", 0, ctx.limits.max_rows, 0, &c->window, false) ||
      !read_integer(cf, "sinks", 0, ctx.limits.max_rows, 0, &c->sinks, false))
    return false;
  if (c->sinks > c->window)
    return ctx.fail(cf.path("sinks"), c->window == 0 ? "expected 0: sinks stay visible beside a window, and "
                                                       "config.window is 0 (every key visible), got " +
                                                           std::to_string(c->sinks)
                                                     : "expected at most " + std::to_string(c->window) +
                                                           " (config.window), got " + std::to_string(c->sinks));
  return true;
}

// "config": every size of the model, each capped so that a small request cannot
// make the model allocate more than the limits allow.
bool read_config(Fields& f, Config* c) {
  Ctx& ctx = f.ctx();
  const Value* v = f.require("config", std::string("an object with ") + kConfigFields);
  if (!v) return false;
  if (!v->is_object())
    return ctx.fail(f.path("config"),
                    std::string("expected an object with ") + kConfigFields + ", got " + describe(*v));
  Fields cf(ctx, *v, f.path("config."));
  const long long rows = ctx.limits.max_rows;
  if (!cf.check_known({"vocab", "context", "d_model", "layers", "heads", "d_ff", "kv_heads", "position", "window",
                       "sinks"},
                      "\"config\"") ||
      !read_integer(cf, "vocab", 1, rows, 0, &c->vocab, true) ||
      !read_integer(cf, "context", 1, rows, 0, &c->context, true) ||
      !read_integer(cf, "d_model", 1, rows, 0, &c->d_model, true) ||
      !read_integer(cf, "layers", 1, kMaxLayers, 0, &c->layers, true) ||
      !read_integer(cf, "heads", 1, c->d_model, 0, &c->heads, true))
    return false;
  // The model splits d_model into heads of d_model / heads columns each.
  if (c->d_model % c->heads != 0)
    return ctx.fail(cf.path("heads"), "expected a divisor of " + std::to_string(c->d_model) +
                                          " (config.d_model), got " + std::to_string(c->heads));
  return read_integer(cf, "d_ff", 1, rows, 0, &c->d_ff, true) && read_options(cf, c) &&
         check_elements(ctx, f.path("config"), c->weight_count(), "the weights");
}

// ---------------------------------------------------------------- 3 token ids
// "tokens" and "targets": one sequence (an array of ids) or a batch (an array
// of such arrays); one sequence is a batch of one that the response unwraps.
struct Ids {
  bool batch = false;
  std::vector<std::vector<int>> seqs;
};

// One sequence: its length first (1 to config.context for a learned table, 1
// to the row limit for the other position kinds; exactly `len` when > 0), then
// each id in [0, vocab).
bool read_sequence(Ctx& ctx, const Value& v, const std::string& path, const Config& c, long long len,
                   const std::string& why_len, std::vector<int>* out) {
  const std::string what = "an array of token ids (whole numbers from 0 to " + std::to_string(c.vocab - 1) + ")";
  if (!v.is_array() || v.size() == 0) return ctx.fail(path, "expected " + what + ", got " + describe(v));
  const long long n = (long long)v.size();
  if (len > 0 && n != len) return ctx.fail(path, expected_count(len, "token id", why_len, n));
  if (c.learned() && n > c.context)
    return ctx.fail(path, "expected at most " + count(c.context, "token id") +
                              " (config.context, the rows of pos), got " + std::to_string(n));
  if (n > ctx.limits.max_rows)
    return ctx.fail(path, "expected at most " + count(ctx.limits.max_rows, "token id") + " (the row limit), got " +
                              std::to_string(n));
  out->assign(std::size_t(n), 0);
  for (long long i = 0; i < n; ++i) {
    long long id = 0;
    if (!to_integer(ctx, v.items()[std::size_t(i)], path + "[" + std::to_string(i) + "]", 0, c.vocab - 1, &id))
      return false;
    (*out)[std::size_t(i)] = int(id);
  }
  return true;
}

// "tokens" (like == nullptr) or "targets" (like: the tokens, whose form and
// lengths they must have).
bool read_ids(Fields& f, const std::string& name, const Config& c, const Ids* like, Ids* out) {
  Ctx& ctx = f.ctx();
  const Value* v = like ? f.get(name) : f.require(name, "an array of token ids, or an array of such arrays (a batch)");
  if (!v) return like != nullptr;  // targets are optional, tokens are not
  const std::string path = f.path(name);
  out->batch = v->is_array() && v->size() > 0 && v->items()[0].is_array();
  if (like && like->batch != out->batch)
    return ctx.fail(path, like->batch ? "expected a batch like tokens (an array of arrays of ids), got " + describe(*v)
                                      : "expected one sequence like tokens (an array of ids), got a batch");
  if (!out->batch) {
    out->seqs.resize(1);
    const long long len = like ? (long long)like->seqs[0].size() : 0;
    return read_sequence(ctx, *v, path, c, len, "one per token of tokens", &out->seqs[0]);
  }
  const long long b = (long long)v->size();
  if (like && b != (long long)like->seqs.size())
    return ctx.fail(path, expected_count((long long)like->seqs.size(), "sequence", "one per sequence of tokens", b));
  if (b > ctx.limits.max_rows)
    return ctx.fail(path, "expected at most " + count(ctx.limits.max_rows, "sequence") + ", got " + std::to_string(b));
  out->seqs.resize(std::size_t(b));
  for (long long s = 0; s < b; ++s) {
    const std::string at = "[" + std::to_string(s) + "]";
    const long long len = like ? (long long)like->seqs[std::size_t(s)].size() : 0;
    if (!read_sequence(ctx, v->items()[std::size_t(s)], path + at, c, len, "one per token of tokens" + at,
                       &out->seqs[std::size_t(s)]))
      return false;
  }
  return true;
}

// The model's intermediates, held at once: each sequence's logits (n x vocab),
// attention weights (layers x heads x n x n) and hidden layer (n x d_ff); and
// the forward pass's main products over the batch.
bool check_size(Fields& f, const Config& c, const Ids& tokens) {
  Ctx& ctx = f.ctx();
  double longest = 0.0, work = 0.0;
  const double V = double(c.vocab), d = double(c.d_model), F = double(c.d_ff), L = double(c.layers);
  for (const std::vector<int>& s : tokens.seqs) {
    const double n = double(s.size());
    longest = std::max(longest, n);
    work += L * (4 * n * d * d + 2 * n * n * d + 2 * n * d * F) + n * d * V;
  }
  const std::string at = f.path("tokens");
  return check_elements(ctx, at, longest * V, "the logits (n x vocab)") &&
         check_elements(ctx, at, L * double(c.heads) * longest * longest,
                        "the attention weights (layers x heads x n x n)") &&
         check_elements(ctx, at, longest * F, "the hidden layer (n x d_ff)") &&
         check_work(ctx, at, work,
                    "the sum over the sequences of layers (4 n d_model^2 + 2 n^2 d_model + 2 n d_model d_ff) + "
                    "n d_model vocab");
}

// ---------------------------------------------------------------- 4 the weights
// A weight read from the request under the model's name for it.
struct Weight {
  std::string param;
  Mat value;
};

// The JSON array's shape before any of its numbers, so that a table of the
// wrong size is reported as such, not by the first odd number inside it.
bool expect_json_shape(Fields& f, const Tensor& t, const Value& v, const Config& c) {
  Ctx& ctx = f.ctx();
  const std::string path = f.path(t.field);
  const long long rows = c.size(t.rows), cols = c.size(t.cols);
  if (t.vector) {
    if (v.is_array() && (v.size() == 0 || !v.items()[0].is_array()) && (long long)v.size() != cols)
      return ctx.fail(path, expected_count(cols, "number", c.why(t.cols), (long long)v.size()));
    return true;
  }
  if (!v.is_array() || v.size() == 0 || !v.items()[0].is_array()) return true;  // to_matrix says what is wrong
  if ((long long)v.size() != rows)
    return ctx.fail(path, expected_count(rows, "row", c.why(t.rows), (long long)v.size()));
  if ((long long)v.items()[0].size() != cols)
    return ctx.fail(path, expected_count(cols, "column", c.why(t.cols), (long long)v.items()[0].size()));
  return true;
}

bool read_tensor(Fields& f, const Tensor& t, const Config& c, const std::string& param_prefix,
                 std::vector<Weight>* out) {
  const std::string pos_note = std::string(t.field) == "pos" ? " for config.position \"learned\"" : "";
  const Value* v = f.require(t.field, t.vector ? "a vector (an array of numbers)" : "a matrix (an array of rows)" + pos_note);
  if (!v || !expect_json_shape(f, t, *v, c)) return false;
  Weight w{param_prefix + t.param, Mat()};
  if (t.vector) {
    Vec x;
    if (!to_vector(f.ctx(), *v, f.path(t.field), &x)) return false;
    w.value = x.transpose();
  } else if (!to_matrix(f.ctx(), *v, f.path(t.field), &w.value)) {
    return false;
  }
  out->push_back(std::move(w));
  return true;
}

bool read_tensors(Fields& f, const std::vector<Tensor>& list, const Config& c, const std::string& param_prefix,
                  std::vector<Weight>* out) {
  for (const Tensor& t : list) {
    if (c.has(t)) {
      if (!read_tensor(f, t, c, param_prefix, out)) return false;
    } else if (f.get(t.field)) {  // "pos" beside another position kind: not a weight of this model
      return f.ctx().fail(f.path(t.field), "expected no table: only position \"learned\" has weights for its "
                                           "positions (config.position is \"" +
                                               std::string(train::position_kind_name(c.position)) + "\")");
    }
  }
  return true;
}

std::vector<const char*> field_names(const std::vector<Tensor>& list) {
  std::vector<const char*> names;
  for (const Tensor& t : list) names.push_back(t.field);
  return names;
}

// Every weight, in the model's order: "embed", "pos", "blocks" (one object a
// layer), then the final LayerNorm and the unembedding.
bool read_weights(Fields& f, const Config& c, std::vector<Weight>* out) {
  Ctx& ctx = f.ctx();
  if (!read_tensors(f, kBefore, c, "", out)) return false;
  const std::string expected = "an array of " + count(c.layers, "object") + " (config.layers), one per block";
  const Value* blocks = f.require("blocks", expected);
  if (!blocks) return false;
  if (!blocks->is_array()) return ctx.fail(f.path("blocks"), "expected " + expected + ", got " + describe(*blocks));
  if ((long long)blocks->size() != c.layers)
    return ctx.fail(f.path("blocks"), expected_count(c.layers, "object", "config.layers", (long long)blocks->size()));
  const std::vector<const char*> known = field_names(kBlock);
  for (long long l = 0; l < c.layers; ++l) {
    const Value& item = blocks->items()[std::size_t(l)];
    const std::string at = f.path(block_path(l));
    if (!item.is_object()) return ctx.fail(at, "expected an object with the block's weights, got " + describe(item));
    Fields bf(ctx, item, at + ".");
    if (!bf.check_known(known, "\"" + block_path(l) + "\"") || !read_tensors(bf, kBlock, c, block_param(l), out))
      return false;
  }
  return read_tensors(f, kAfter, c, "", out);
}

// ---------------------------------------------------------------- 5 running the model
// The model of `c` holding `weights`. Every one of its tensors must have been
// given, under its own name and in its own shape: the table of section 1 and
// the model cannot drift apart unnoticed.
bool load_weights(Ctx& ctx, std::vector<Weight>& weights, CharLm* model) {
  const train::ParamList params = model->params();
  if (params.size() != weights.size())
    return ctx.fail("", "internal error: the model has " + std::to_string(params.size()) + " tensors, the request " +
                            std::to_string(weights.size()));
  for (Param* p : params) {
    Weight* found = nullptr;
    for (Weight& w : weights)
      if (w.param == p->name) found = &w;
    if (!found || found->value.rows() != p->value.rows() || found->value.cols() != p->value.cols())
      return ctx.fail("", "internal error: the request's tensors do not match the model's " + p->name);
    p->value = std::move(found->value);
  }
  return true;
}

const Param* find_param(const train::ParamList& params, const std::string& name) {
  for (const Param* p : params)
    if (p->name == name) return p;
  return nullptr;
}

// The gradients under the request's names, in its order.
void write_tensors(Ctx& ctx, const std::vector<Tensor>& list, const train::ParamList& params,
                   const std::string& param_prefix, const std::string& path, Value* out) {
  for (const Tensor& t : list) {
    const Param* p = find_param(params, param_prefix + t.param);
    if (!p) continue;  // not reached: load_weights matched every tensor
    const std::string at = path + t.field;
    out->set(t.field, t.vector ? out_vector(ctx, Vec(p->grad.row(0).transpose()), at) : out_matrix(ctx, p->grad, at));
  }
}

Value write_grads(Ctx& ctx, CharLm& model, long long layers) {
  const train::ParamList params = model.params();
  Value grad = Value::object();
  write_tensors(ctx, kBefore, params, "", "grad.", &grad);
  Value blocks = Value::array();
  for (long long l = 0; l < layers; ++l) {
    Value b = Value::object();
    write_tensors(ctx, kBlock, params, block_param(l), "grad." + block_path(l) + ".", &b);
    blocks.push(std::move(b));
  }
  grad.set("blocks", std::move(blocks));
  write_tensors(ctx, kAfter, params, "", "grad.", &grad);
  return grad;
}

// One sequence's attention weights as layers x heads x (n, n).
Value write_attention(Ctx& ctx, const std::vector<std::vector<Mat>>& weights, const std::string& path) {
  Value layers = Value::array();
  for (std::size_t l = 0; l < weights.size(); ++l) {
    Value heads = Value::array();
    for (std::size_t h = 0; h < weights[l].size(); ++h)
      heads.push(out_matrix(ctx, weights[l][h], path + "[" + std::to_string(l) + "][" + std::to_string(h) + "]"));
    layers.push(std::move(heads));
  }
  return layers;
}

// The logits (n, vocab) of tokens pushed one at a time through a key/value
// cache, and the cache's size after the last.
std::pair<Mat, train::CacheSize> cached_logits(const CharLm& model, const std::vector<int>& tokens) {
  train::CharLmCache cache(model);
  const int V = model.desc().vocab;
  Mat z(long(tokens.size()), V);
  for (std::size_t i = 0; i < tokens.size(); ++i) std::copy_n(cache.push(tokens[i]), V, &z(long(i), 0));
  return {z, cache.size()};
}

Value write_cache(const train::CacheSize& s) {
  Value v = Value::object();
  v.set("entries", s.entries);
  v.set("capacity", s.capacity);
  v.set("numbers", double(s.numbers));
  v.set("bytes", double(s.bytes));
  return v;
}

}  // namespace

// ---------------------------------------------------------------- 6 the kind
bool eval_decoder(Fields& f, Value* out) {
  Ctx& ctx = f.ctx();
  ctx.main_input = f.path("tokens");
  std::vector<const char*> known = {"kind", "config", "tokens", "targets", "cache"};
  for (const char* name : field_names(kBefore)) known.push_back(name);
  known.push_back("blocks");
  for (const char* name : field_names(kAfter)) known.push_back(name);
  if (!f.check_known(known, "kind \"decoder\"")) return false;

  Config c;
  Ids tokens, targets;
  std::vector<Weight> weights;
  bool cache = false;
  if (!read_config(f, &c) || !read_bool(f, "cache", false, &cache) || !read_ids(f, "tokens", c, nullptr, &tokens) ||
      !read_ids(f, "targets", c, &tokens, &targets) || !check_size(f, c, tokens) || !read_weights(f, c, &weights))
    return false;

  CharLm model(c.desc());
  if (!load_weights(ctx, weights, &model)) return false;

  // Each sequence on its own, as CharLm::logits and CharLm::attention give them;
  // with the cache, its logits row by row as generation computes them (the
  // same bits), and what the cache held at the end.
  Value logits = Value::array(), attention = Value::array(), caches = Value::array();
  for (std::size_t s = 0; s < tokens.seqs.size(); ++s) {
    const std::string at = tokens.batch ? "[" + std::to_string(s) + "]" : "";
    if (cache) {
      const auto [rows, size] = cached_logits(model, tokens.seqs[s]);
      logits.push(out_matrix(ctx, rows, "logits" + at));
      caches.push(write_cache(size));
    } else {
      logits.push(out_matrix(ctx, model.logits(tokens.seqs[s]), "logits" + at));
    }
    attention.push(write_attention(ctx, model.attention(tokens.seqs[s]), "attention" + at));
  }
  out->set("logits", tokens.batch ? std::move(logits) : std::move(logits.items()[0]));
  out->set("attention", tokens.batch ? std::move(attention) : std::move(attention.items()[0]));
  if (cache) out->set("cache", tokens.batch ? std::move(caches) : std::move(caches.items()[0]));
  if (targets.seqs.empty() || ctx.failed) return true;

  // The loss and gradients exactly as a training step (CharLm::forward_backward)
  // takes them: the mean over every predicted token of the batch, the losses
  // summed in double in batch order, the sequences' gradients along the fixed
  // tree of train/grad_tree.h.
  long long units = 0;
  for (const std::vector<int>& s : targets.seqs) units += (long long)s.size();
  const float scale = 1.0f / float(units);
  const double total = model.sequences_gradient(tokens.seqs, targets.seqs, scale);
  out->set("loss", out_number(ctx, float(total / double(units)), "loss"));
  out->set("grad", write_grads(ctx, model, c.layers));
  return true;
}

}  // namespace attn::eval_detail
