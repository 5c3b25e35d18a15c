// decoder_positions.cpp: position kinds, rotary tables and ALiBi slopes
// (decoder_positions.h).
#include "train/decoder_positions.h"

#include <cmath>

#include "base/enum_names.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 kinds
namespace {
constexpr EnumName<PositionKind> kKinds[] = {{PositionKind::learned, "learned"},
                                             {PositionKind::sinusoidal, "sinusoidal"},
                                             {PositionKind::rope, "rope"},
                                             {PositionKind::alibi, "alibi"},
                                             {PositionKind::none, "none"}};
}  // namespace

const char* position_kind_name(PositionKind kind) { return enum_name(kKinds, kind); }
bool parse_position_kind(const std::string& name, PositionKind* kind) { return parse_enum(kKinds, name, kind); }
bool adds_position_rows(PositionKind kind) { return kind == PositionKind::learned || kind == PositionKind::sinusoidal; }

// ---------------------------------------------------------------- 2 rotary tables and turns
RopeTable rope_table(int positions, int d_h, double base) {
  RopeTable t;
  t.positions = positions > 0 ? positions : 0;
  t.pairs = d_h > 0 ? d_h / 2 : 0;
  t.cos.resize(size_t(t.positions) * size_t(t.pairs));
  t.sin.resize(t.cos.size());
  for (int i = 0; i < t.pairs; ++i) {
    // double: at position 128 a float angle is already off by about 1e-5 radians.
    const double theta = std::pow(base, -2.0 * double(i) / double(d_h));
    for (int p = 0; p < t.positions; ++p) {
      const double angle = double(p) * theta;
      t.cos[size_t(p) * size_t(t.pairs) + size_t(i)] = float(std::cos(angle));
      t.sin[size_t(p) * size_t(t.pairs) + size_t(i)] = float(std::sin(angle));
    }
  }
  return t;
}

void rope_turn(float* x, const RopeTable& t, int pos) {
  const float* c = t.cos_row(pos);
  const float* s = t.sin_row(pos);
  for (int i = 0; i < t.pairs; ++i) {
    const float a = x[2 * i], b = x[2 * i + 1];
    x[2 * i] = a * c[i] - b * s[i];
    x[2 * i + 1] = a * s[i] + b * c[i];
  }
}

void rope_turn_back(float* dx, const RopeTable& t, int pos) {
  const float* c = t.cos_row(pos);
  const float* s = t.sin_row(pos);
  for (int i = 0; i < t.pairs; ++i) {
    const float a = dx[2 * i], b = dx[2 * i + 1];
    dx[2 * i] = a * c[i] + b * s[i];
    dx[2 * i + 1] = b * c[i] - a * s[i];
  }
}

// ---------------------------------------------------------------- 3 ALiBi slopes
namespace {
// 2^(-8k/n) for k = 1 .. n, n a power of two.
std::vector<double> power_of_two_slopes(int n) {
  std::vector<double> s;
  for (int k = 1; k <= n; ++k) s.push_back(std::pow(2.0, -8.0 * double(k) / double(n)));
  return s;
}
}  // namespace

std::vector<float> alibi_slopes(int heads) {
  if (heads <= 0) return {};
  int low = 1;
  while (low * 2 <= heads) low *= 2;
  std::vector<double> s = power_of_two_slopes(low);
  if (low < heads) {
    const std::vector<double> more = power_of_two_slopes(2 * low);
    for (size_t k = 0; k < more.size() && int(s.size()) < heads; k += 2) s.push_back(more[k]);
  }
  return std::vector<float>(s.begin(), s.end());
}

// ---------------------------------------------------------------- 6 the options together
bool decoder_options_ok(const DecoderOptions& o, int heads, int d_head, std::string* why) {
  const auto fail = [&](const std::string& what) {
    if (why) *why = what;
    return false;
  };
  const int kv = kv_heads_of(o, heads);
  if (o.kv_heads < 0 || kv > heads || heads % kv != 0)
    return fail("kv_heads must divide heads (" + std::to_string(heads) + "), got " + std::to_string(o.kv_heads));
  if (o.position == PositionKind::rope && d_head % 2 != 0)
    return fail("rope turns pairs of columns: the head size must be even, got " + std::to_string(d_head));
  if (o.window < 0) return fail("the window must be 0 (all keys) or positive, got " + std::to_string(o.window));
  if (o.sinks < 0) return fail("sinks must be 0 or more, got " + std::to_string(o.sinks));
  if (o.sinks > o.window)
    return fail("sinks (" + std::to_string(o.sinks) + ") must not exceed the window (" + std::to_string(o.window) + ")");
  return true;
}

}  // namespace attn::train
