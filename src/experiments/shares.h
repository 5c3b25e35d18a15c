// shares.h: a language model's training step shared among workers. The
// training worker (trainer.h) is the coordinator: it holds the experiments and
// takes every optimiser step. Other workers -- plain Web Workers in the page,
// threads natively, node's worker threads in the tests -- are helpers: each
// computes the gradient of its share of a batch (train/grad_tree.h) on a copy of
// the weights, and sends it back. No memory is shared; a job and its result
// are bytes, which cross a MessagePort, a thread's queue or a function call.
//
//   coordinator                                   helper
//   -----------                                   ------
//   ShareJob: the model's shape and options    -> compute_share_job: a model of that
//   (kv_heads, position, window, sinks), its      shape (kept while the shape stays),
//   weights, the batch's windows, examples        the weights copied in, the share
//   [begin, end)                                  computed
//   ShareResult: the share's tree nodes and    <-
//   each example's loss
//
// The shares are reduced along the tree fixed by example index, so the loss and
// every weight have the same bits for any number of workers and any split.
// Everything a helper or the coordinator receives is checked (length, then
// shape, then values) before it is used: a malformed job is answered with an
// error, a malformed or unexpected result is refused.
//
// Sections: 1 jobs and results as bytes, 2 the helper's side, 3 the
// coordinator's view of its helpers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "train/char_lm.h"
#include "train/grad_tree.h"

namespace attn {

// ---------------------------------------------------------------- 1 jobs and results
// Limits on what a job may ask for (the page's models are far smaller).
constexpr int kMaxShareVocab = 4096, kMaxShareContext = 1024, kMaxShareWidth = 1024, kMaxShareLayers = 16,
              kMaxShareBatch = 1024;
constexpr size_t kMaxShareMessage = 256u << 20;

struct ShareJob {
  uint64_t id = 0;                 // the coordinator's number for it, echoed in the result
  train::CharLmDesc desc;          // the model's shape (the optimiser and seed are not sent)
  std::vector<std::vector<float>> weights;  // every parameter, in the registry's order
  std::vector<data::TextWindow> windows;    // the whole batch, in batch order
  int begin = 0, end = 0;          // the share: examples [begin, end) of the batch
};

struct ShareResult {
  uint64_t id = 0;
  std::string error;               // the helper could not compute it (then nothing else)
  train::GradientShare share;      // batch, begin, end, size, nodes; node sums and losses
};

std::string encode_share_job(const ShareJob& job);
// The same bytes, written straight from a model's parameters and a batch's
// windows (the coordinator's way: no copy of the weights first).
std::string encode_share_job(uint64_t id, const train::CharLmDesc& desc, const train::ParamList& params,
                             const std::vector<const data::TextWindow*>& windows, int begin, int end);
bool decode_share_job(std::string_view bytes, ShareJob* job, std::string* why);
// A computed share: only its node sums (each node's sum is in its first
// example's leaf), not the other leaves; or why the job could not be done.
std::string encode_share_result(uint64_t id, const train::GradientShare& share);
std::string encode_share_error(uint64_t id, const std::string& why);
// The job number a result answers (its first bytes), to find who waits for it
// before the rest is read; false when the bytes are not a result.
bool peek_share_result_id(std::string_view bytes, uint64_t* id);
// Rebuilds the share: every node sum in its first example's leaf. `expected_size`
// is the gradient's length the coordinator needs (the layout of its model). The
// share's buffers are reused (a step's result is read into the same ones as the
// last step's).
bool decode_share_result(std::string_view bytes, size_t expected_size, ShareResult* r, std::string* why);

// ---------------------------------------------------------------- 2 the helper's side
// What a helper keeps between jobs: its model (rebuilt when the shape changes)
// and its workspace.
class ShareHelper {
 public:
  // The result for a job, as bytes; a malformed job is answered with an error.
  // The weights are read straight into the helper's model.
  std::string compute(std::string_view job_bytes);

 private:
  std::unique_ptr<train::CharLm> model_;
  train::CharLmDesc shape_;
  train::CharLmWorkspace ws_;
  train::GradientShare share_;
  std::vector<data::TextWindow> windows_;
};

// ---------------------------------------------------------------- 3 the coordinator's helpers
// Where a coordinator sends jobs. helpers() counts the other workers (0: it
// computes every share itself); post() hands helper h (0 .. helpers()-1) a job.
// Results come back to the coordinator as messages (TrainerWorker::receive_result).
class ShareFarm {
 public:
  virtual ~ShareFarm() = default;
  virtual int helpers() const = 0;
  virtual void post(int helper, std::string job) = 0;
  // A job number no other job of this farm has had.
  uint64_t take_id() { return next_id_++; }

 private:
  uint64_t next_id_ = 1;
};

}  // namespace attn
