// shares.cpp: a language model's step shared among workers (shares.h).
//
// Sections: 1 jobs and results as bytes, 2 the helper's side.
#include "experiments/shares.h"

#include <algorithm>
#include <numeric>

#include "base/bytes.h"

namespace attn {

// ---------------------------------------------------------------- 1 jobs and results
namespace {
constexpr uint32_t kJobTag = 0x4a4d4c53;     // "SLMJ"
constexpr uint32_t kResultTag = 0x524d4c53;  // "SLMR"

bool fail(std::string* why, const std::string& what) {
  *why = what;
  return false;
}

// The shape's numbers are in range and consistent; false with why.
bool shape_ok(const train::CharLmDesc& d, std::string* why) {
  if (d.vocab < 2 || d.vocab > kMaxShareVocab) return fail(why, "the vocabulary size is out of range");
  if (d.context < 1 || d.context > kMaxShareContext) return fail(why, "the context is out of range");
  if (d.d_model < 1 || d.d_model > kMaxShareWidth || d.d_ff < 1 || d.d_ff > 4 * kMaxShareWidth)
    return fail(why, "a width is out of range");
  if (d.layers < 1 || d.layers > kMaxShareLayers) return fail(why, "the number of layers is out of range");
  if (d.heads < 1 || d.d_model % d.heads != 0) return fail(why, "the heads do not divide the width");
  std::string bad;
  if (!train::char_lm_options_ok(d, &bad)) return fail(why, "the model's options do not fit: " + bad);
  return true;
}

bool same_shape(const train::CharLmDesc& a, const train::CharLmDesc& b) {
  const train::DecoderOptions &p = a.options, &q = b.options;
  return a.vocab == b.vocab && a.context == b.context && a.d_model == b.d_model && a.layers == b.layers &&
         a.heads == b.heads && a.d_ff == b.d_ff && p.kv_heads == q.kv_heads && p.position == q.position &&
         p.window == q.window && p.sinks == q.sinks;
}

bool read_int(ByteReader& r, int lo, int hi, int* v) {
  uint32_t u;
  if (!r.u32(&u) || u > uint32_t(hi) || int(u) < lo) return false;
  *v = int(u);
  return true;
}
}  // namespace

namespace {
// The job's fields around its weights, written by both encoders.
void write_shape(ByteWriter& w, uint64_t id, const train::CharLmDesc& d) {
  w.u32(kJobTag);
  w.i64(int64_t(id));
  for (int v : {d.vocab, d.context, d.d_model, d.layers, d.heads, d.d_ff}) w.u32(uint32_t(v));
  const train::DecoderOptions& o = d.options;
  for (int v : {o.kv_heads, int(o.position), o.window, o.sinks}) w.u32(uint32_t(v));
}
void write_windows(ByteWriter& w, const std::vector<const data::TextWindow*>& windows, int begin, int end) {
  w.u32(uint32_t(windows.size()));
  for (const data::TextWindow* win : windows) {
    w.u32(uint32_t(win->tokens.size()));
    for (int t : win->tokens) w.u32(uint32_t(t));
  }
  w.u32(uint32_t(begin));
  w.u32(uint32_t(end));
}

// Reads a job: its number and shape into *job, then hands the reader to
// read_weights(reader, count) for the weights (count parameters follow), then
// the windows and the share into *job. Length, shape and values are checked.
template <typename ReadWeights>
bool parse_job(std::string_view bytes, ShareJob* job, std::string* why, ReadWeights&& read_weights) {
  if (bytes.size() > kMaxShareMessage) return fail(why, "the job is too large");
  ByteReader r(bytes);
  uint32_t tag = 0;
  int64_t id = 0;
  train::CharLmDesc& d = job->desc;
  if (!r.u32(&tag) || tag != kJobTag || !r.i64(&id)) return fail(why, "not a share job");
  job->id = uint64_t(id);
  if (!read_int(r, 0, kMaxShareVocab, &d.vocab) || !read_int(r, 0, kMaxShareContext, &d.context) ||
      !read_int(r, 0, kMaxShareWidth, &d.d_model) || !read_int(r, 0, kMaxShareLayers, &d.layers) ||
      !read_int(r, 0, kMaxShareWidth, &d.heads) || !read_int(r, 0, 4 * kMaxShareWidth, &d.d_ff))
    return fail(why, "the model's shape is malformed");
  train::DecoderOptions& o = d.options;
  int position = 0;
  if (!read_int(r, 0, kMaxShareWidth, &o.kv_heads) || !read_int(r, 0, int(train::PositionKind::none), &position) ||
      !read_int(r, 0, kMaxShareContext, &o.window) || !read_int(r, 0, kMaxShareContext, &o.sinks))
    return fail(why, "the model's options are malformed");
  o.position = train::PositionKind(position);
  if (!shape_ok(d, why)) return false;
  int params = 0;
  why->clear();
  if (!read_int(r, 1, 1 << 16, &params) || !read_weights(r, params, why)) {
    if (why->empty()) *why = "the weights are malformed";
    return false;
  }
  int batch = 0;
  if (!read_int(r, 1, kMaxShareBatch, &batch)) return fail(why, "the batch is malformed");
  job->windows.resize(size_t(batch));
  for (data::TextWindow& win : job->windows) {
    int n = 0;
    if (!read_int(r, 0, d.context + 1, &n)) return fail(why, "a window is malformed");
    win.tokens.resize(size_t(n));
    for (int& t : win.tokens)
      if (!read_int(r, 0, d.vocab - 1, &t)) return fail(why, "a window holds an id outside the vocabulary");
  }
  if (!read_int(r, 0, batch, &job->begin) || !read_int(r, job->begin, batch, &job->end) || job->begin == job->end)
    return fail(why, "the share is malformed");
  if (!r.at_end()) return fail(why, "the job has bytes after its end");
  return true;
}
}  // namespace

std::string encode_share_job(const ShareJob& job) {
  ByteWriter w;
  write_shape(w, job.id, job.desc);
  w.u32(uint32_t(job.weights.size()));
  for (const auto& p : job.weights) w.floats(p);
  std::vector<const data::TextWindow*> windows;
  for (const data::TextWindow& win : job.windows) windows.push_back(&win);
  write_windows(w, windows, job.begin, job.end);
  return w.take();
}

std::string encode_share_job(uint64_t id, const train::CharLmDesc& desc, const train::ParamList& params,
                             const std::vector<const data::TextWindow*>& windows, int begin, int end) {
  ByteWriter w;
  write_shape(w, id, desc);
  w.u32(uint32_t(params.size()));
  for (const train::Param* p : params) w.floats(p->value.data(), size_t(p->value.size()));
  write_windows(w, windows, begin, end);
  return w.take();
}

bool decode_share_job(std::string_view bytes, ShareJob* out, std::string* why) {
  ShareJob j;
  const bool ok = parse_job(bytes, &j, why, [&](ByteReader& r, int params, std::string*) {
    j.weights.resize(size_t(params));
    for (auto& p : j.weights)
      if (!r.floats(&p, kMaxShareMessage / 4)) return false;
    return true;
  });
  if (ok) *out = std::move(j);
  return ok;
}

std::string encode_share_error(uint64_t id, const std::string& why) {
  ByteWriter w;
  w.u32(kResultTag);
  w.i64(int64_t(id));
  w.str(why.empty() ? std::string("unknown error") : why.substr(0, 1000));
  return w.take();
}

std::string encode_share_result(uint64_t id, const train::GradientShare& s) {
  ByteWriter w;
  w.u32(kResultTag);
  w.i64(int64_t(id));
  w.str("");
  for (int v : {s.batch, s.begin, s.end}) w.u32(uint32_t(v));
  w.u32(uint32_t(s.nodes.size()));
  for (size_t k = 0; k < s.nodes.size(); ++k) {
    w.u32(uint32_t(s.nodes[k].begin));
    w.u32(uint32_t(s.nodes[k].end));
    w.floats(s.node_sum(k), s.size);
  }
  w.u32(uint32_t(s.losses.size()));
  for (double l : s.losses) w.f64(l);
  return w.take();
}

bool peek_share_result_id(std::string_view bytes, uint64_t* id) {
  ByteReader r(bytes);
  uint32_t tag = 0;
  int64_t v = 0;
  if (!r.u32(&tag) || tag != kResultTag || !r.i64(&v)) return false;
  *id = uint64_t(v);
  return true;
}

bool decode_share_result(std::string_view bytes, size_t expected_size, ShareResult* out, std::string* why) {
  // Read into out->share's own buffers; on a refusal its contents are left undone.
  if (bytes.size() > kMaxShareMessage) return fail(why, "the result is too large");
  ByteReader r(bytes);
  uint32_t tag = 0;
  int64_t id = 0;
  out->error.clear();
  if (!r.u32(&tag) || tag != kResultTag || !r.i64(&id) || !r.str(&out->error, 1000)) return fail(why, "not a share result");
  out->id = uint64_t(id);
  if (!out->error.empty()) return r.at_end() || fail(why, "the result has bytes after its end");
  int batch = 0, begin = 0, end = 0, nodes = 0;
  if (!read_int(r, 1, kMaxShareBatch, &batch) || !read_int(r, 0, batch, &begin) || !read_int(r, begin, batch, &end) ||
      begin == end || !read_int(r, 1, batch, &nodes))
    return fail(why, "the share is malformed");
  train::GradientShare& s = out->share;
  s.reset(batch, begin, end, expected_size, false);
  if (int(s.nodes.size()) != nodes) return fail(why, "the share's nodes do not match its examples");
  for (size_t k = 0; k < s.nodes.size(); ++k) {
    int nb = 0, ne = 0;
    if (!read_int(r, 0, batch, &nb) || !read_int(r, 0, batch, &ne) || !(s.nodes[k] == train::TreeNode{nb, ne}))
      return fail(why, "the share's nodes do not match its examples");
    if (!r.floats_into(s.node_sum(k), expected_size)) return fail(why, "a node's gradient has the wrong size");
  }
  int losses = 0;
  if (!read_int(r, 0, batch, &losses) || losses != end - begin) return fail(why, "the losses do not match the share");
  for (double& l : s.losses)
    if (!r.f64(&l)) return fail(why, "the losses are malformed");
  if (!r.at_end()) return fail(why, "the result has bytes after its end");
  return true;
}

// ---------------------------------------------------------------- 2 the helper's side
std::string ShareHelper::compute(std::string_view job_bytes) {
  ShareJob job;
  std::string why;
  job.windows = std::move(windows_);  // reused from the last job
  const bool ok = parse_job(job_bytes, &job, &why, [&](ByteReader& r, int count, std::string* bad) {
    if (!model_ || !same_shape(shape_, job.desc)) {
      model_ = std::make_unique<train::CharLm>(job.desc);
      shape_ = job.desc;
    }
    const train::ParamList params = model_->params();
    if (size_t(count) != params.size()) return fail(bad, "the weights do not fit the model's shape");
    for (train::Param* p : params)
      if (!r.floats_into(p->value.data(), size_t(p->value.size()))) return fail(bad, "the weights do not fit the model's shape");
    return true;
  });
  if (!ok) {
    windows_ = std::move(job.windows);
    return encode_share_error(job.id, why);
  }
  std::vector<int> batch(job.windows.size());
  std::iota(batch.begin(), batch.end(), 0);
  model_->gradient_share(job.windows, batch, job.begin, job.end, share_, ws_);
  windows_ = std::move(job.windows);
  return encode_share_result(job.id, share_);
}

}  // namespace attn
