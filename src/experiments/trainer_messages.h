// trainer_messages.h: the training worker's messages (trainer.h has the
// protocol's story and both of its ends): what each op carries, and their bytes.
// Every message is bytes (base/bytes.h), so the same encoding crosses
// postMessage, a thread's queue or a function call; decoding checks the length
// first, then the shape, then the values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "course/demo_api.h"

namespace attn {

constexpr size_t kMaxTrainerMessage = 64u << 20;
constexpr size_t kMaxTrainerKey = 256;

enum class TrainerOp : uint8_t {
  // page -> worker
  open = 1,   // key, demo, inputs: make the experiment (kept if it exists)
  reset,      // key, demo, inputs: a fresh experiment in its place
  run,        // key, speed ("slow", "normal", "fast")
  pause,      // key
  step,       // key: one training step (finishing an evaluation it triggers)
  setting,    // key, name, value: a view setting (Experiment::set_view_setting)
  matrix,     // key, name, matrix (Experiment::set_view_matrix)
  close,      // key: forget the experiment
  ping,       // (no key): the worker answers pong; the page's heartbeat
  text,       // (no key) name, value: a corpus the page fetched (data::provide_corpus):
              // its name ("tang_poems", ...) and its bytes; sent before the step opens
  status,     // key: the worker answers report with the experiment's status (tests, the bench)
  // worker -> page
  snapshot = 32,  // key, generation, running, done, state
  pong,           // answers ping
  failed,         // key (may be empty), why: the experiment or the worker failed
  report,         // key, value: the experiment's status as JSON text (Experiment::status)
};

struct TrainerMessage {
  TrainerOp op = TrainerOp::ping;
  std::string key;       // the step's key ("lesson/step-id")
  uint64_t generation = 0;
  std::string demo;      // open, reset
  DemoInputs inputs;     // open, reset
  std::string name;      // setting, matrix
  std::string value;     // setting: its value; run: the speed; failed: why; text: the corpus
  Mat matrix;            // matrix
  bool running = false;  // snapshot
  bool done = false;     // snapshot
  std::string state;     // snapshot: Experiment::write_state's bytes
};

std::string encode_trainer_message(const TrainerMessage& m);
// Length, then shape, then values: false (and why) for anything malformed.
bool decode_trainer_message(std::string_view bytes, TrainerMessage* m, std::string* why);

}  // namespace attn
