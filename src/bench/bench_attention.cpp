// bench_attention: times the project's attention kernels on one machine and
// prints one JSON object per line. The same source runs natively and, compiled
// by emcc, under node (with and without SIMD128); scripts/bench.mjs runs all
// three, adds the JavaScript peers (ONNX Runtime Web, TF.js) and compares.
//
//   bench_attention [--out DIR] [--quick] [--shape N D | --passes N D | --machine-only | --products | --training STEPS [--model NAME]... | --lm STEPS [--workers N]]
//     --out DIR       write DIR/inputs_n<N>_d<D>.f32 (the exact inputs, so peers
//                     can compute on the same numbers; native build only) and
//                     DIR/<build>/..._n<N>_d<D>.f32 (outputs, for the agreement check)
//     --quick         a tenth of the timing budget (for a smoke run)
//     --shape N D     only this case, no machine measurements (scripts/bench.mjs
//                     runs every implementation case by case, so that a busy
//                     machine slows all of them alike)
//     --passes N D    only this case's attention, its passes timed one by one
//                     (cumulatively: see print_pass_timings)
//     --machine-only  only the clock and SIMD ceiling measurements
//     --products      only training's matrix products at the language model's
//                     shapes, beside Eigen's (section 5c)
//     --training STEPS  only training speed: every model of
//                     attn::train::all_run_kinds(), default settings and seed,
//                     one untimed warm-up step, then STEPS timed steps
//                     (attn::train::measure_training_speed); with --model,
//                     only the models named (run_kind_name: "induction", ...)
//     --lm STEPS      only the language model of the lesson (train_lm's default:
//                     lm_english, batch 8, context 32): training tokens per
//                     second of its batched step and the step's FLOP (section
//                     5b); with --out (native build), DIR/lm_windows.i32: the
//                     token ids of the warm-up and timed batches, for TF.js to
//                     train on the same windows; natively with --workers N, the
//                     batch shared among N threads (train/thread_team.h)
//
// Cases: n in {16, 64, 256, 1024} x d in {16, 64}, d_model = d_k = d_v = d.
//   attention       Q, K, V (n, d) given -> softmax(Q K^T / sqrt(d)) V
//                   FLOP = 4 n^2 d  (Q K^T: 2 n^2 d, P V: 2 n^2 d; the softmax's
//                   exp / max / sum are not counted -- "nominal" GFLOP/s)
//   self_attention  X (n, d) -> Q, K, V = X W_Q, X W_K, X W_V -> attention
//                   FLOP = 6 n d^2 + 4 n^2 d
//   projection      the X [W_Q | W_K | W_V] product alone, FLOP = 6 n d^2
// Timing: warm-up (>= 3 calls and 100 ms), then samples of a batch of calls (a batch lasts >= 0.2 ms so
// the clock's resolution does not matter); the reported time is the median
// sample divided by the batch size.
//
// Sections: 1 clock and timing, 2 machine measurements (clock speed, SIMD
// ceiling), 3 inputs and outputs, 4 cases, 5 training speed, 5b the language
// model's tokens per second, 5c training's matrix products, 5d the CPU's name,
// 6 main.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attn/fast_attention.h"
#include "base/rng.h"
#include "base/simd_info.h"
#include "base/tensor.h"
#include "bench/bench_decoder.h"
#include "train/char_lm.h"
#include "train/kernels.h"
#include "train/train_run.h"
#if defined(LAB_BENCH_THREADS)
#include "train/thread_team.h"
#endif

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

using attn::Mat;

namespace {

// ---------------------------------------------------------------- 1 clock and timing
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double g_budget_ms = 300.0;  // per measurement (set by --quick)

struct Timing {
  double median_ms = 0, min_ms = 0;
  int samples = 0, batch = 0;
};

template <class Run>
Timing time_it(Run run) {
  // Warm-up: at least 3 calls and 100 ms (V8 swaps in optimised wasm code in the
  // background; caches; clock frequency).
  const double warm_start = now_ms();
  int warm_calls = 0;
  while (warm_calls < 3 || now_ms() - warm_start < 100.0) run(), ++warm_calls;
  const double per_call = (now_ms() - warm_start) / warm_calls;
  Timing t;
  t.batch = std::max(1, int(0.2 / std::max(per_call, 1e-6)));
  t.samples = std::clamp(int(g_budget_ms / (per_call * t.batch)), 7, 2001);
  std::vector<double> samples;
  for (int s = 0; s < t.samples; ++s) {
    const double t0 = now_ms();
    for (int b = 0; b < t.batch; ++b) run();
    samples.push_back((now_ms() - t0) / t.batch);
  }
  std::sort(samples.begin(), samples.end());
  t.median_ms = samples[samples.size() / 2];
  t.min_ms = samples.front();
  return t;
}

// ---------------------------------------------------------------- 2 machine measurements
// Clock speed from a chain of dependent register-to-register integer adds (one
// cycle each on every x86-64 core of the last decades): 64 adds per loop
// iteration, the loop counter runs alongside; the best of 101 short runs (about
// 2 ms each, so that on a busy machine some of them run without being
// preempted). Native x86-64 only; elsewhere 0. The added value is a register,
// not an immediate: Intel's Golden Cove cores (Alder Lake, Sapphire Rapids)
// fold chains of `add reg, imm` in the renamer, several per cycle, and the
// earlier `addq $1` chain read 10.2 GHz on a 2.1 GHz Xeon.
double measure_clock_ghz() {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
  const long iterations = 100000;  // 6.4e6 cycles
  std::vector<double> ghz;
  for (int rep = 0; rep < 101; ++rep) {
    uint64_t x = 0, one = 1;
    const double t0 = now_ms();
    for (long i = 0; i < iterations; ++i) asm volatile(".rept 64\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
    const double ms = now_ms() - t0;
    ghz.push_back(double(iterations) * 64.0 / (ms * 1e6));
  }
  return *std::max_element(ghz.begin(), ghz.end());  // other processes can only slow a run down
#else
  return 0.0;
#endif
}

// Peak of 128-bit (4-lane) float multiplies and adds, all independent: 6 chains
// of multiplies and 6 of adds, enough to keep 2 multiply and 2 add pipes with
// 3-cycle latency busy, and few enough (12 + 2 constants) to stay in 16
// registers. Counts 4 FLOP per vector op. Returns 0 without 128-bit SIMD.
// The loop is its own function, called many times: V8 first runs wasm in its
// baseline compiler and switches to optimised code only at the next call.
#if defined(__wasm_simd128__) || (defined(__SSE2__) && !defined(__EMSCRIPTEN__))
#if defined(__wasm_simd128__)
using V128 = v128_t;
inline V128 v_splat(float x) { return wasm_f32x4_splat(x); }
inline V128 v_mul(V128 a, V128 b) { return wasm_f32x4_mul(a, b); }
inline V128 v_add(V128 a, V128 b) { return wasm_f32x4_add(a, b); }
inline float v_lane0(V128 a) { return wasm_f32x4_extract_lane(a, 0); }
#else
using V128 = __m128;
inline V128 v_splat(float x) { return _mm_set1_ps(x); }
inline V128 v_mul(V128 a, V128 b) { return _mm_mul_ps(a, b); }
inline V128 v_add(V128 a, V128 b) { return _mm_add_ps(a, b); }
inline float v_lane0(V128 a) { return _mm_cvtss_f32(a); }
#endif
__attribute__((noinline)) float simd128_mul_add_loop(long iterations, float factor_in, float step_in) {
  const V128 factor = v_splat(factor_in), step = v_splat(step_in);
  V128 m0 = v_splat(1.0f), m1 = v_splat(1.1f), m2 = v_splat(1.2f), m3 = v_splat(1.3f), m4 = v_splat(1.4f), m5 = v_splat(1.5f);
  V128 a0 = v_splat(0.0f), a1 = v_splat(0.1f), a2 = v_splat(0.2f), a3 = v_splat(0.3f), a4 = v_splat(0.4f), a5 = v_splat(0.5f);
  for (long i = 0; i < iterations; ++i) {
    m0 = v_mul(m0, factor); m1 = v_mul(m1, factor); m2 = v_mul(m2, factor);
    m3 = v_mul(m3, factor); m4 = v_mul(m4, factor); m5 = v_mul(m5, factor);
    a0 = v_add(a0, step); a1 = v_add(a1, step); a2 = v_add(a2, step);
    a3 = v_add(a3, step); a4 = v_add(a4, step); a5 = v_add(a5, step);
  }
  const V128 m = v_add(v_add(v_add(m0, m1), v_add(m2, m3)), v_add(m4, m5));
  const V128 a = v_add(v_add(v_add(a0, a1), v_add(a2, a3)), v_add(a4, a5));
  return v_lane0(v_add(m, a));
}

double measure_simd128_peak_gflops() {
  volatile float factor = 0.9999999f, step = 1e-7f;  // opaque to the optimiser
  volatile float sink = 0.0f;
  const long iterations = 1000000;  // 12e6 vector ops, a few ms
  const double warm_start = now_ms();
  while (now_ms() - warm_start < 200.0) sink = sink + simd128_mul_add_loop(iterations / 10, factor, step);
  std::vector<double> gflops;
  for (int rep = 0; rep < 31; ++rep) {
    const double t0 = now_ms();
    sink = sink + simd128_mul_add_loop(iterations, factor, step);
    gflops.push_back(double(iterations) * 12.0 * 4.0 / ((now_ms() - t0) * 1e6));
  }
  return *std::max_element(gflops.begin(), gflops.end());  // a ceiling: the best of 31 runs
}
#else
double measure_simd128_peak_gflops() { return 0.0; }
#endif

// ---------------------------------------------------------------- 3 inputs and outputs
struct Inputs {
  Mat Q, K, V;           // (n, d) each, uniform in [-1, 1]
  Mat X;                 // (n, d), uniform in [-1, 1]
  Mat W_Q, W_K, W_V;     // (d, d), uniform in +-1/sqrt(d)
};

Mat uniform(attn::Rng& rng, int rows, int cols, float limit) {
  Mat M(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) M(r, c) = rng.uniform(-limit, limit);
  return M;
}

// Seeded by the shape only: every build, native or wasm, draws the same numbers.
Inputs make_inputs(int n, int d) {
  attn::Rng rng(uint64_t(1000 * n + d));
  Inputs in;
  in.Q = uniform(rng, n, d, 1.0f);
  in.K = uniform(rng, n, d, 1.0f);
  in.V = uniform(rng, n, d, 1.0f);
  in.X = uniform(rng, n, d, 1.0f);
  const float limit = 1.0f / std::sqrt(float(d));
  in.W_Q = uniform(rng, d, d, limit);
  in.W_K = uniform(rng, d, d, limit);
  in.W_V = uniform(rng, d, d, limit);
  return in;
}

double checksum(const Mat& M) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < M.size(); ++i) s += double(M.data()[i]) * double(1 + i % 7);
  return s;
}

bool write_floats(const std::string& path, const std::vector<const Mat*>& mats) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = true;
  for (const Mat* m : mats) ok = ok && std::fwrite(m->data(), sizeof(float), size_t(m->size()), f) == size_t(m->size());
  return std::fclose(f) == 0 && ok;
}

// ---------------------------------------------------------------- 4 cases
// Attention the way plain Eigen code writes it: the whole (n, n) score matrix,
// a row-wise softmax, then the product with V. The baseline the tiled kernel
// has to beat inside this project.
void eigen_attention(const Mat& Q, const Mat& K, const Mat& V, Mat* S, Mat* out) {
  const float scale = 1.0f / std::sqrt(float(Q.cols()));
  S->noalias() = (Q * K.transpose()) * scale;                           // (n_q, n_k)
  S->colwise() -= S->rowwise().maxCoeff();
  *S = S->array().exp().matrix();
  S->array().colwise() /= S->array().rowwise().sum();
  out->noalias() = *S * V;                                              // (n_q, d_v)
}

void print_result(const char* build, const char* kind, const char* impl, int n, int d, double flop, const Timing& t,
                  double sum) {
  std::printf("{\"kind\":\"%s\",\"build\":\"%s\",\"impl\":\"%s\",\"n\":%d,\"d\":%d,\"flop\":%.0f,"
              "\"median_ms\":%.6f,\"min_ms\":%.6f,\"gflops\":%.3f,\"samples\":%d,\"batch\":%d,\"checksum\":%.9g}\n",
              kind, build, impl, n, d, flop, t.median_ms, t.min_ms, flop / (t.median_ms * 1e6), t.samples, t.batch,
              sum);
  std::fflush(stdout);
}

// Per-pass timing (--passes): the attention kernel with its passes switched on
// one after another (attention_passes in fast_attention.h), so each pass's
// cost is the difference between two consecutive lines. Passes read what
// earlier passes wrote, so a pass alone would not be timed on its real data.
void print_pass_timings(const char* build, int n, int d, const Inputs& in) {
  namespace ap = attn::attention_passes;
  struct Step { const char* name; unsigned passes; };
  const Step steps[] = {
      {"checks", ap::checks},
      {"pack", ap::pack},
      {"pack+scores", ap::pack | ap::scores},
      {"pack+scores+softmax", ap::pack | ap::scores | ap::softmax},
      {"pack+scores+softmax+weighted_sum", ap::pack | ap::scores | ap::softmax | ap::weighted_sum},
      {"pack+scores+softmax+weighted_sum+normalise", ap::all & ~ap::checks},
      {"all", ap::all},
  };
  attn::FastAttentionWorkspace ws;
  Mat out;
  for (const Step& step : steps) {
    const Timing t = time_it([&] { attn::fast_attention_passes(in.Q, in.K, in.V, step.passes, &out, ws); });
    std::printf("{\"kind\":\"passes\",\"build\":\"%s\",\"n\":%d,\"d\":%d,\"passes\":\"%s\",\"median_ms\":%.6f,"
                "\"min_ms\":%.6f,\"samples\":%d,\"batch\":%d}\n",
                build, n, d, step.name, t.median_ms, t.min_ms, t.samples, t.batch);
    std::fflush(stdout);
  }
}

// ---------------------------------------------------------------- 5 training speed
// Steps per second of every model the lab trains, with the settings a lesson
// starts from. last_loss is printed in full so the caller can see whether every
// build computed the same losses (the training core promises identical bits).
void print_training_speeds(const char* build, int steps, const std::vector<std::string>& only) {
  for (attn::train::RunKind kind : attn::train::all_run_kinds()) {
    if (!only.empty() && std::find(only.begin(), only.end(), attn::train::run_kind_name(kind)) == only.end()) continue;
    attn::train::RunDesc desc;
    desc.kind = kind;
    const attn::train::ModelSpeed s = attn::train::measure_training_speed(desc, steps);
    if (!s.error.empty()) {  // a language model without its corpus: say so, time nothing
      std::string why = s.error;
      std::replace(why.begin(), why.end(), '"', '\'');
      std::printf("{\"kind\":\"training\",\"build\":\"%s\",\"model\":\"%s\",\"error\":\"%s\"}\n", build, s.name.c_str(),
                  why.c_str());
      continue;
    }
    std::printf("{\"kind\":\"training\",\"build\":\"%s\",\"model\":\"%s\",\"parameters\":%ld,\"steps\":%d,"
                "\"seconds\":%.6f,\"steps_per_second\":%.3f,\"last_loss\":%.9g}\n",
                build, s.name.c_str(), s.parameters, s.timing.steps, s.timing.seconds, s.timing.steps_per_second,
                double(s.timing.last_loss));
    std::fflush(stdout);
  }
}

// ---------------------------------------------------------------- 5b the language model's tokens per second
// The character language model as the lesson trains it (src/experiments/language_model.cpp:
// lm_english, TrainRun's defaults: batch 8 windows of context + 1 = 33 ids,
// CharLmDesc's sizes, Adam 3e-3). Tokens = predicted characters = batch x
// context per step.
//
// FLOP of one step, matrix products only (forward + backward, nominal: the
// causal scores are counted as the full n x n square, like the attention
// cases; LayerNorm, GELU, softmax, the loss and Adam are not counted):
//   per window of n tokens, L layers, width d, FFN width d_ff, V characters
//     forward: L (8 n d^2 + 4 n d d_ff + 4 n^2 d) + 2 n d V
//              (Q, K, V, O projections; the two FFN products; Q K^T and P V
//              over all heads; the unembedding)
//     backward: twice the forward (each product's input and weight gradient)
//   = 6 n W + 12 L n^2 d,  W = L (4 d^2 + 2 d d_ff) + d V  (the weights that
//     enter a matrix product; the "6 x parameters x tokens" rule counted over
//     them, plus attention's scores and mixing, 2 n^2 d per product)
// times the windows of the batch.
struct LmShape {
  int batch = 0, n = 0, d = 0, layers = 0, heads = 0, d_ff = 0, vocab = 0;
};

double lm_matmul_weights(const LmShape& s) {
  return double(s.layers) * (4.0 * s.d * s.d + 2.0 * s.d * s.d_ff) + double(s.d) * s.vocab;
}

double lm_step_flop(const LmShape& s) {
  const double n = s.n;
  return s.batch * (6.0 * n * lm_matmul_weights(s) + 12.0 * s.layers * n * n * s.d);
}

// Every parameter of the model from its sizes (embeddings, positions, per block
// 2 LayerNorms, 4 bias-free attention matrices, the FFN with biases; the final
// LayerNorm; the unembedding with its bias), to check the sizes above against
// the model the run built.
long lm_parameters(const LmShape& s) {
  const long d = s.d, f = s.d_ff, V = s.vocab;
  return V * d + long(s.n) * d + s.layers * (4 * d + 4 * d * d + 2 * d * f + f + d) + 2 * d + d * V + V;
}

bool write_ints(const std::string& path, const std::vector<int32_t>& ids) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(ids.data(), sizeof(int32_t), ids.size(), f) == ids.size();
  return std::fclose(f) == 0 && ok;
}

void print_lm_training(const char* build, int steps, const std::string& out_dir, int workers) {
  attn::train::RunDesc desc;
  desc.kind = attn::train::RunKind::lm_english;
  attn::train::TrainRun run(desc);
  if (!run.error().empty()) {
    std::string why = run.error();
    std::replace(why.begin(), why.end(), '"', '\'');
    std::printf("{\"kind\":\"lm_training\",\"build\":\"%s\",\"model\":\"lm_english\",\"error\":\"%s\"}\n", build,
                why.c_str());
    return;
  }
  const attn::train::CharLmDesc& m = run.char_lm()->desc();
  LmShape s;
  s.batch = run.batch_order().batch_size;
  s.n = m.context;
  s.d = m.d_model;
  s.layers = m.layers;
  s.heads = m.heads;
  s.d_ff = m.d_ff;
  s.vocab = m.vocab;
  // The windows of the warm-up step and the timed steps, in order (a copy of
  // the run's batch order, so the run still draws them itself).
  attn::train::BatchOrder order = run.batch_order();
  std::vector<int32_t> ids;
  bool full_windows = true;
  for (int step = 0; step <= steps; ++step)
    for (int i : order.next()) {
      const std::vector<int>& t = run.text_train()[size_t(i)].tokens;
      full_windows = full_windows && int(t.size()) == s.n + 1;
      ids.insert(ids.end(), t.begin(), t.end());
    }
  if (!out_dir.empty() && std::string(build) == "native") write_ints(out_dir + "/lm_windows.i32", ids);
  // The batched step (char_lm.h), its batch on one thread, or natively shared
  // among `workers` threads (thread_team.h: the same losses, bit for bit).
  std::vector<float> step_losses;
  attn::train::StepTiming t;
#if defined(LAB_BENCH_THREADS)
  if (workers > 1) {
    attn::train::ThreadTeam team(workers);
    attn::train::CharLmTeamStep team_step;
    attn::train::BatchOrder draws = run.batch_order();
    auto step = [&] {
      step_losses.push_back(team_step.run(*run.char_lm(), run.text_train(), draws.next(), team));
      return step_losses.back();
    };
    step();  // warm-up: the optimiser allocates its moments
    t = attn::train::time_steps(steps, step);
  }
#endif
  if (workers <= 1) {
    run.step();  // warm-up: the optimiser allocates its moments
    t = attn::train::time_steps(steps, [&run] { return run.step(); });
    step_losses = run.losses();
  }
  // Every step's loss, the warm-up's first (TF.js's are compared at the same
  // step), as %.9g: a float's exact value, so builds and worker counts can be
  // compared bit for bit.
  std::string losses;
  for (float l : step_losses) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(l));
    losses += (losses.empty() ? "" : ",") + std::string(buf);
  }
  const double tokens = double(s.batch) * s.n, flop = lm_step_flop(s);
  std::printf("{\"kind\":\"lm_training\",\"build\":\"%s\",\"model\":\"lm_english\",\"workers\":%d,\"vocab\":%d,\"context\":%d,"
              "\"d_model\":%d,\"layers\":%d,\"heads\":%d,\"d_ff\":%d,\"batch\":%d,\"learning_rate\":%g,"
              "\"parameters\":%ld,\"parameters_from_sizes\":%ld,\"matmul_weights\":%.0f,\"full_windows\":%s,"
              "\"tokens_per_step\":%.0f,\"flop_per_step\":%.0f,\"steps\":%d,\"seconds\":%.6f,\"steps_per_second\":%.3f,"
              "\"tokens_per_second\":%.1f,\"gflops\":%.3f,\"last_loss\":%.9g,\"losses\":[%s]}\n",
              build, std::max(1, workers), s.vocab, s.n, s.d, s.layers, s.heads, s.d_ff, s.batch, double(m.optimizer.lr),
              run.parameter_count(), lm_parameters(s), lm_matmul_weights(s), full_windows ? "true" : "false", tokens,
              flop, t.steps, t.seconds, t.steps_per_second, t.steps_per_second * tokens,
              t.steps_per_second * flop / 1e9, double(t.last_loss), losses.c_str());
  std::fflush(stdout);
}

// ---------------------------------------------------------------- 5c training's matrix products
// The products of a training step (src/train/kernels.h) at the language model's
// shapes (train::CharLmDesc; train_lm trains a batch of 8 windows, and each
// window of `context` rows is its own product): the forward product Y = X W,
// the input gradient Y += D W^T (matmul_nt_add) and the weight gradient
// G += X^T D (matmul_tn_add), each beside Eigen's product of the same shape in
// the same build. FLOP = 2 n k m each. Inputs uniform in [-1, 1] (no zeros, so
// matmul_tn_add's skip of zero rows never fires).
void print_training_products(const char* build) {
  const attn::train::CharLmDesc lm;
  const int n = lm.context;
  struct Layer { const char* name; int k, m; };  // X (n, k), W (k, m), D (n, m)
  // (The unembedding, d_model -> vocab, is the projections' shape when the
  // vocabulary has 64 characters, as CharLmDesc's default.)
  const Layer layers[] = {{"attention_projection", lm.d_model, lm.d_model},
                          {"ffn_in", lm.d_model, lm.d_ff},
                          {"ffn_out", lm.d_ff, lm.d_model}};
  attn::Rng rng(4242);
  for (const Layer& layer : layers) {
    const Mat X = uniform(rng, n, layer.k, 1.0f), W = uniform(rng, layer.k, layer.m, 1.0f),
              D = uniform(rng, n, layer.m, 1.0f);
    Mat Y, dX = Mat::Zero(n, layer.k), G = Mat::Zero(layer.k, layer.m);
    const double flop = 2.0 * n * layer.k * layer.m;
    auto report = [&](const char* op, const char* impl, const Timing& t) {
      std::printf("{\"kind\":\"product\",\"build\":\"%s\",\"layer\":\"%s\",\"op\":\"%s\",\"impl\":\"%s\",\"n\":%d,"
                  "\"k\":%d,\"m\":%d,\"flop\":%.0f,\"median_ms\":%.6f,\"min_ms\":%.6f,\"gflops\":%.3f}\n",
                  build, layer.name, op, impl, n, layer.k, layer.m, flop, t.median_ms, t.min_ms,
                  flop / (t.median_ms * 1e6));
      std::fflush(stdout);
    };
    report("forward", "train", time_it([&] { attn::train::matmul(X, W, Y); }));
    report("forward", "eigen", time_it([&] { Y.noalias() = X * W; }));
    report("input_gradient", "train", time_it([&] { attn::train::matmul_nt_add(D, W, dX); }));
    report("input_gradient", "eigen", time_it([&] { dX.noalias() += D * W.transpose(); }));
    report("weight_gradient", "train", time_it([&] { attn::train::matmul_tn_add(X, D, G); }));
    report("weight_gradient", "eigen", time_it([&] { G.noalias() += X.transpose() * D; }));
  }
  // The batched step's products (kernels.h, section 4): all 8 x 32 rows of a
  // batch at once; the weight gradient still window by window, each window's
  // into a buffer of its own (grad_tree.h), as char_lm.cpp computes them.
  const int windows = 8, rows = windows * n;
  for (const Layer& layer : layers) {
    const Mat X = uniform(rng, rows, layer.k, 1.0f), W = uniform(rng, layer.k, layer.m, 1.0f),
              D = uniform(rng, rows, layer.m, 1.0f);
    Mat Y(rows, layer.m), dX(rows, layer.k), Wt(layer.m, layer.k), G = Mat::Zero(windows * layer.k, layer.m);
    const double flop = 2.0 * rows * layer.k * layer.m;
    const std::string name = std::string(layer.name) + "_batch";
    auto report = [&](const char* op, const char* impl, const Timing& t) {
      std::printf("{\"kind\":\"product\",\"build\":\"%s\",\"layer\":\"%s\",\"op\":\"%s\",\"impl\":\"%s\",\"n\":%d,"
                  "\"k\":%d,\"m\":%d,\"flop\":%.0f,\"median_ms\":%.6f,\"min_ms\":%.6f,\"gflops\":%.3f}\n",
                  build, name.c_str(), op, impl, rows, layer.k, layer.m, flop, t.median_ms, t.min_ms,
                  flop / (t.median_ms * 1e6));
      std::fflush(stdout);
    };
    attn::train::Product fwd;
    fwd.M = rows, fwd.N = layer.m, fwd.K = layer.k, fwd.A = X.data(), fwd.lda = layer.k, fwd.B = W.data(),
    fwd.ldb = layer.m, fwd.C = Y.data(), fwd.ldc = layer.m;
    report("forward", "train", time_it([&] { attn::train::product(fwd); }));
    report("forward", "eigen", time_it([&] { Y.noalias() = X * W; }));
    attn::train::Product in;
    in.M = rows, in.N = layer.k, in.K = layer.m, in.A = D.data(), in.lda = layer.m, in.B = Wt.data(), in.ldb = layer.k,
    in.C = dX.data(), in.ldc = layer.k;
    report("input_gradient", "train", time_it([&] {
             attn::train::transpose_into(W.data(), layer.k, layer.m, layer.m, Wt.data(), layer.k);
             attn::train::product(in);
           }));
    report("input_gradient", "eigen", time_it([&] { dX.noalias() = D * W.transpose(); }));
    report("weight_gradient", "train", time_it([&] {
             for (int w = 0; w < windows; ++w) {
               attn::train::Product g;
               g.M = layer.k, g.N = layer.m, g.K = n, g.A = X.data() + size_t(w) * n * layer.k, g.lda = layer.k,
               g.a_transposed = true, g.B = D.data() + size_t(w) * n * layer.m, g.ldb = layer.m,
               g.C = G.data() + size_t(w) * layer.k * layer.m, g.ldc = layer.m, g.accumulate = true;
               attn::train::product(g);
             }
           }));
    report("weight_gradient", "eigen", time_it([&] {
             for (int w = 0; w < windows; ++w)
               G.middleRows(w * layer.k, layer.k).noalias() += X.middleRows(w * n, n).transpose() * D.middleRows(w * n, n);
           }));
  }
}

// ---------------------------------------------------------------- 5d the CPU
// The processor's name for every table: natively /proc/cpuinfo's model name;
// WebAssembly cannot ask, so it says where to look.
std::string cpu_model() {
#if defined(__EMSCRIPTEN__)
  return "see native";
#else
  std::string model = "unknown";
  if (FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (!std::strncmp(line, "model name", 10) && std::strchr(line, ':')) {
        model = std::strchr(line, ':') + 1;
        break;
      }
    std::fclose(f);
  }
  model.erase(0, model.find_first_not_of(" \t"));
  model.erase(model.find_last_not_of(" \t\r\n") + 1);
  for (char& c : model)
    if (c == '"' || c == '\\') c = '\'';  // stays valid JSON
  return model;
#endif
}

}  // namespace

// ---------------------------------------------------------------- 6 main
int main(int argc, char** argv) {
  std::string out_dir;
  bool machine = true, cases = true;
  int only_n = 0, only_d = 0, training_steps = 0, lm_steps = 0, lm_workers = 1, decoder_steps = 0;
  bool passes = false, products = false;
  std::vector<std::string> only_models;  // --model: the training speeds of these only
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) g_budget_ms = 30.0;
    else if (!std::strcmp(argv[i], "--shape") && i + 2 < argc) {
      only_n = std::atoi(argv[++i]);
      only_d = std::atoi(argv[++i]);
      machine = false;
    }
    else if (!std::strcmp(argv[i], "--passes") && i + 2 < argc) {
      only_n = std::atoi(argv[++i]);
      only_d = std::atoi(argv[++i]);
      machine = false;
      passes = true;
    }
    else if (!std::strcmp(argv[i], "--machine-only")) cases = false;
    else if (!std::strcmp(argv[i], "--products")) {
      products = true;
      machine = cases = false;
    }
    else if (!std::strcmp(argv[i], "--training") && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      training_steps = std::atoi(argv[++i]);
      machine = cases = false;
    }
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) only_models.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--lm") && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      lm_steps = std::atoi(argv[++i]);
      machine = cases = false;
    }
    else if (!std::strcmp(argv[i], "--decoder") && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      decoder_steps = std::atoi(argv[++i]);
      machine = cases = false;
    }
#if defined(LAB_BENCH_THREADS)
    else if (!std::strcmp(argv[i], "--workers") && i + 1 < argc && std::atoi(argv[i + 1]) > 0)
      lm_workers = std::atoi(argv[++i]);
#endif
    else {
      std::fprintf(stderr,
                   "usage: bench_attention [--out DIR] [--quick] [--shape N D | --passes N D | --machine-only | --products | --training STEPS [--model NAME]... | --lm STEPS [--workers N] | --decoder STEPS]\n");
      return 2;
    }
  }
#if defined(__EMSCRIPTEN__)
  const char* build = attn::wasm_simd128_enabled() ? "wasm-simd" : "wasm-scalar";
#else
  const char* build = "native";
#endif
  std::printf("{\"kind\":\"info\",\"build\":\"%s\",\"isa\":\"%s\",\"lanes\":%d,\"eigen_simd\":\"%s\",\"cpu\":\"%s\"}\n",
              build, attn::fast_kernel_isa(), attn::fast_kernel_lanes(), attn::eigen_simd_in_use(), cpu_model().c_str());
  if (machine)
    std::printf("{\"kind\":\"machine\",\"build\":\"%s\",\"clock_ghz\":%.3f,\"simd128_peak_gflops\":%.2f}\n", build,
                measure_clock_ghz(), measure_simd128_peak_gflops());
  std::fflush(stdout);
  if (training_steps > 0) print_training_speeds(build, training_steps, only_models);
  if (lm_steps > 0) print_lm_training(build, lm_steps, out_dir, lm_workers);
  if (products) print_training_products(build);
  if (decoder_steps > 0) {  // the decoder's options (issue 37): generation with and without the cache, training per option
    attn::bench::print_generation(build, g_budget_ms);
    attn::bench::print_option_training(build, decoder_steps);
  }

  const int lengths[] = {16, 64, 256, 1024}, widths[] = {16, 64};
  for (int n : lengths)
    for (int d : widths) {
      if (!cases || (only_n && (n != only_n || d != only_d))) continue;
      const Inputs in = make_inputs(n, d);
      const double attention_flop = 4.0 * n * double(n) * d;
      const double projection_flop = 6.0 * n * double(d) * d;
      std::printf("{\"kind\":\"inputs\",\"build\":\"%s\",\"n\":%d,\"d\":%d,\"checksum\":%.9g}\n", build, n, d,
                  checksum(in.Q) + checksum(in.K) + checksum(in.V) + checksum(in.X) + checksum(in.W_Q) +
                      checksum(in.W_K) + checksum(in.W_V));
      if (passes) {
        print_pass_timings(build, n, d, in);
        continue;
      }
      // Every fast call runs on one workspace, as a program calling the kernels
      // repeatedly would: after the warm-up no call allocates. (Without one, each
      // call allocated ~200 KiB of scratch at n = 256, d = 64, which glibc handed
      // back to the OS and page-faulted in again on the next call.)
      attn::FastAttentionWorkspace ws;
      Mat out, S;
      attn::FastAttentionDesc desc;
      const std::string shape = "_n" + std::to_string(n) + "_d" + std::to_string(d) + ".f32";

      // attention: Q, K, V given
      Timing t = time_it([&] { attn::fast_attention(in.Q, in.K, in.V, desc, &out, nullptr, nullptr, &ws); });
      print_result(build, "attention", "simd", n, d, attention_flop, t, checksum(out));
      if (!out_dir.empty()) write_floats(out_dir + "/" + build + "/attention" + shape, {&out});
      t = time_it([&] { attn::fast_attention_scalar(in.Q, in.K, in.V, desc, &out, nullptr, nullptr, &ws); });
      print_result(build, "attention", "scalar", n, d, attention_flop, t, checksum(out));
      t = time_it([&] { eigen_attention(in.Q, in.K, in.V, &S, &out); });
      print_result(build, "attention", "eigen", n, d, attention_flop, t, checksum(out));

      // self-attention: X -> projections -> attention
      const attn::SelfAttentionWeights w{in.W_Q, in.W_K, in.W_V};
      attn::FastSelfAttentionDesc self;
      self.projection = attn::ProjectionKernel::fast;
      t = time_it([&] { attn::fast_self_attention(in.X, w, self, &out, nullptr, &ws); });
      print_result(build, "self_attention", "simd", n, d, attention_flop + projection_flop, t, checksum(out));
      if (!out_dir.empty()) write_floats(out_dir + "/" + build + "/self_attention" + shape, {&out});
      self.projection = attn::ProjectionKernel::eigen;
      t = time_it([&] { attn::fast_self_attention(in.X, w, self, &out, nullptr, &ws); });
      print_result(build, "self_attention", "simd-eigen-proj", n, d, attention_flop + projection_flop, t,
                   checksum(out));
      self.projection = attn::ProjectionKernel::fast;
      self.scalar = true;
      t = time_it([&] { attn::fast_self_attention(in.X, w, self, &out, nullptr, &ws); });
      print_result(build, "self_attention", "scalar", n, d, attention_flop + projection_flop, t, checksum(out));

      // the projection product alone: own kernel vs Eigen
      Mat W_all(d, 3 * d);
      W_all << in.W_Q, in.W_K, in.W_V;
      t = time_it([&] { attn::fast_matmul(in.X, W_all, &out, &ws); });
      print_result(build, "projection", "fast", n, d, projection_flop, t, checksum(out));
      t = time_it([&] { out.noalias() = in.X * W_all; });
      print_result(build, "projection", "eigen", n, d, projection_flop, t, checksum(out));

      if (!out_dir.empty() && std::string(build) == "native")
        write_floats(out_dir + "/inputs" + shape, {&in.Q, &in.K, &in.V, &in.X, &in.W_Q, &in.W_K, &in.W_V});
    }
  std::printf("{\"kind\":\"done\",\"build\":\"%s\"}\n", build);
  return 0;
}
