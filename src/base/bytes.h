// bytes.h: a small binary format for messages between the page and its
// training worker (and the native training thread): little-endian integers,
// IEEE floats and doubles, length-prefixed strings and float arrays.
//
//   ByteWriter w;  w.u32(7);  w.str("induction");  w.floats(m.data(), m.size());
//   ByteReader r(w.bytes());
//   uint32_t n;  std::string s;  std::vector<float> v;
//   if (!r.u32(&n) || !r.str(&s, 64) || !r.floats(&v, 1 << 20)) ...   // hostile: every read is checked
//
// A reader never reads past its end: every read says whether it succeeded, and
// after one failure every later read fails too (ok() is false). Lengths are
// checked against the caller's limit before anything is allocated, so a
// message that claims a billion floats costs nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// Every platform the lab builds for stores floats little-endian, as the byte
// format does; then arrays of floats are copied whole (the training worker's
// snapshots and shared gradients are hundreds of KB a message).
inline bool host_little_endian() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(char(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(char((v >> (8 * i)) & 0xff));
  }
  void i64(int64_t v) {
    const uint64_t u = uint64_t(v);
    for (int i = 0; i < 8; ++i) out_.push_back(char((u >> (8 * i)) & 0xff));
  }
  void f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u32(u);
  }
  void f64(double v) {
    int64_t u;
    std::memcpy(&u, &v, 8);
    i64(u);
  }
  void str(std::string_view s) {
    u32(uint32_t(s.size()));
    out_.append(s.data(), s.size());
  }
  void floats(const float* p, size_t n) {
    u32(uint32_t(n));
    if (host_little_endian()) {
      const size_t at = out_.size();
      out_.resize(at + 4 * n);
      if (n) std::memcpy(&out_[at], p, 4 * n);
      return;
    }
    for (size_t i = 0; i < n; ++i) f32(p[i]);
  }
  void floats(const std::vector<float>& v) { floats(v.data(), v.size()); }

  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool u8(uint8_t* v) {
    if (!need(1)) return false;
    *v = uint8_t(in_[pos_++]);
    return true;
  }
  bool u32(uint32_t* v) {
    if (!need(4)) return false;
    uint32_t x = 0;
    for (int i = 0; i < 4; ++i) x |= uint32_t(uint8_t(in_[pos_ + size_t(i)])) << (8 * i);
    pos_ += 4;
    *v = x;
    return true;
  }
  bool i64(int64_t* v) {
    if (!need(8)) return false;
    uint64_t x = 0;
    for (int i = 0; i < 8; ++i) x |= uint64_t(uint8_t(in_[pos_ + size_t(i)])) << (8 * i);
    pos_ += 8;
    *v = int64_t(x);
    return true;
  }
  bool f32(float* v) {
    uint32_t u;
    if (!u32(&u)) return false;
    std::memcpy(v, &u, 4);
    return true;
  }
  bool f64(double* v) {
    int64_t u;
    if (!i64(&u)) return false;
    std::memcpy(v, &u, 8);
    return true;
  }
  // A string of at most max_len bytes.
  bool str(std::string* s, size_t max_len) {
    uint32_t n;
    if (!u32(&n) || n > max_len || !need(n)) return fail();
    s->assign(in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  // At most max_count floats.
  bool floats(std::vector<float>* v, size_t max_count) {
    uint32_t n;
    if (!u32(&n) || n > max_count || !need(size_t(n) * 4)) return fail();
    v->resize(n);
    copy_floats(v->data(), n);
    return true;
  }
  // Exactly `count` floats into p (a parameter of known shape).
  bool floats_into(float* p, size_t count) {
    uint32_t n;
    if (!u32(&n) || n != count || !need(size_t(n) * 4)) return fail();
    copy_floats(p, n);
    return true;
  }

  bool ok() const { return ok_; }
  bool at_end() const { return ok_ && pos_ == in_.size(); }
  size_t remaining() const { return ok_ ? in_.size() - pos_ : 0; }

 private:
  // n floats that need() has found room for.
  void copy_floats(float* p, size_t n) {
    if (host_little_endian()) {
      if (n) std::memcpy(p, in_.data() + pos_, 4 * n);
      pos_ += 4 * n;
      return;
    }
    for (size_t i = 0; i < n; ++i) f32(&p[i]);
  }
  bool need(size_t n) {
    if (!ok_ || n > in_.size() - pos_) return fail();
    return true;
  }
  bool fail() {
    ok_ = false;
    return false;
  }

  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace attn
