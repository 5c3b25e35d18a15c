// trainer_messages.cpp: the training worker's messages as bytes, and the checks
// of decoding (trainer_messages.h).
#include "experiments/trainer_messages.h"

#include <utility>

#include "base/bytes.h"
#include "data/text_corpus.h"

namespace attn {

// Layout: u32 tag, u8 op, then by op (base/bytes.h):
//   open, reset   key, generation, demo, inputs (settings, matrices, tokens)
//   run           key, generation, speed
//   pause, step, close   key, generation
//   setting       key, generation, name, value
//   matrix        key, generation, name, rows, cols, floats
//   snapshot      key, generation, running, done, state
//   failed        key, why
//   ping, pong    nothing
namespace {
constexpr uint32_t kTrainerTag = 0x314e5254;  // "TRN1"
constexpr size_t kMaxName = 64, kMaxValue = 4096, kMaxEntries = 256, kMaxTokens = 4096, kMaxReport = 1u << 20;
constexpr uint32_t kMaxSide = 4096;
constexpr size_t kMaxCells = 1u << 22;

bool has_key(TrainerOp op) { return op != TrainerOp::ping && op != TrainerOp::pong && op != TrainerOp::text; }
bool has_generation(TrainerOp op) {
  return has_key(op) && op != TrainerOp::failed && op != TrainerOp::report && op != TrainerOp::status;
}

void write_matrix(ByteWriter& w, const Mat& m) {
  w.u32(uint32_t(m.rows()));
  w.u32(uint32_t(m.cols()));
  w.floats(m.data(), size_t(m.size()));
}
bool read_matrix(ByteReader& r, Mat* m) {
  uint32_t rows = 0, cols = 0;
  if (!r.u32(&rows) || !r.u32(&cols) || rows > kMaxSide || cols > kMaxSide || size_t(rows) * cols > kMaxCells)
    return false;
  m->resize(Eigen::Index(rows), Eigen::Index(cols));
  return r.floats_into(m->data(), size_t(m->size()));
}
}  // namespace

std::string encode_trainer_message(const TrainerMessage& m) {
  ByteWriter w;
  w.u32(kTrainerTag);
  w.u8(uint8_t(m.op));
  if (has_key(m.op)) w.str(m.key);
  if (has_generation(m.op)) w.i64(int64_t(m.generation));
  switch (m.op) {
    case TrainerOp::open:
    case TrainerOp::reset:
      w.str(m.demo);
      w.u32(uint32_t(m.inputs.settings.size()));
      for (const auto& [name, value] : m.inputs.settings) {
        w.str(name);
        w.str(value);
      }
      w.u32(uint32_t(m.inputs.mats.size()));
      for (const auto& [name, mat] : m.inputs.mats) {
        w.str(name);
        write_matrix(w, mat);
      }
      w.u32(uint32_t(m.inputs.tokens.size()));
      for (const std::string& t : m.inputs.tokens) w.str(t);
      break;
    case TrainerOp::run: w.str(m.value); break;
    case TrainerOp::setting:
      w.str(m.name);
      w.str(m.value);
      break;
    case TrainerOp::matrix:
      w.str(m.name);
      write_matrix(w, m.matrix);
      break;
    case TrainerOp::snapshot:
      w.u8(m.running);
      w.u8(m.done);
      w.str(m.state);
      break;
    case TrainerOp::failed:
    case TrainerOp::report: w.str(m.value); break;
    case TrainerOp::text:
      w.str(m.name);
      w.str(m.value);
      break;
    default: break;
  }
  return w.take();
}

bool decode_trainer_message(std::string_view bytes, TrainerMessage* out, std::string* why) {
  // Length first, then the shape of every field, then its values.
  if (bytes.size() > kMaxTrainerMessage) {
    *why = "message of " + std::to_string(bytes.size()) + " bytes (at most " + std::to_string(kMaxTrainerMessage) + ")";
    return false;
  }
  ByteReader r(bytes);
  uint32_t tag = 0;
  uint8_t op = 0;
  if (!r.u32(&tag) || tag != kTrainerTag || !r.u8(&op)) {
    *why = "not a trainer message";
    return false;
  }
  const bool known = (op >= uint8_t(TrainerOp::open) && op <= uint8_t(TrainerOp::status)) ||
                     (op >= uint8_t(TrainerOp::snapshot) && op <= uint8_t(TrainerOp::report));
  if (!known) {
    *why = "unknown message kind " + std::to_string(op);
    return false;
  }
  TrainerMessage m;
  m.op = TrainerOp(op);
  int64_t generation = 0;
  if (has_key(m.op) && !r.str(&m.key, kMaxTrainerKey)) {
    *why = "bad key";
    return false;
  }
  if (has_generation(m.op) && (!r.i64(&generation) || generation < 0)) {
    *why = "bad generation";
    return false;
  }
  m.generation = uint64_t(generation);
  bool ok = true;
  switch (m.op) {
    case TrainerOp::open:
    case TrainerOp::reset: {
      uint32_t n = 0;
      ok = r.str(&m.demo, kMaxName) && r.u32(&n) && n <= kMaxEntries;
      for (uint32_t i = 0; ok && i < n; ++i) {
        std::string name, value;
        ok = r.str(&name, kMaxName) && r.str(&value, kMaxValue);
        m.inputs.settings[name] = value;
      }
      ok = ok && r.u32(&n) && n <= kMaxEntries;
      for (uint32_t i = 0; ok && i < n; ++i) {
        std::string name;
        Mat mat;
        ok = r.str(&name, kMaxName) && read_matrix(r, &mat);
        m.inputs.mats[name] = std::move(mat);
      }
      ok = ok && r.u32(&n) && n <= kMaxTokens;
      for (uint32_t i = 0; ok && i < n; ++i) {
        std::string t;
        ok = r.str(&t, kMaxName);
        m.inputs.tokens.push_back(std::move(t));
      }
      break;
    }
    case TrainerOp::run:
      ok = r.str(&m.value, kMaxName) && (m.value == "slow" || m.value == "normal" || m.value == "fast");
      break;
    case TrainerOp::setting: ok = r.str(&m.name, kMaxName) && r.str(&m.value, kMaxValue); break;
    case TrainerOp::matrix: ok = r.str(&m.name, kMaxName) && read_matrix(r, &m.matrix); break;
    case TrainerOp::snapshot: {
      uint8_t running = 0, done = 0;
      ok = r.u8(&running) && running <= 1 && r.u8(&done) && done <= 1 && r.str(&m.state, kMaxTrainerMessage);
      m.running = running;
      m.done = done;
      break;
    }
    case TrainerOp::failed: ok = r.str(&m.value, kMaxValue); break;
    case TrainerOp::report: ok = r.str(&m.value, kMaxReport); break;
    case TrainerOp::text: {
      data::TextCorpusKind kind;
      ok = r.str(&m.name, kMaxName) && data::parse_text_corpus_name(m.name, &kind) &&
           r.str(&m.value, data::kMaxCorpusBytes);
      break;
    }
    default: break;
  }
  if (!ok || !r.at_end()) {
    *why = "malformed message";
    return false;
  }
  *out = std::move(m);
  return true;
}

}  // namespace attn
