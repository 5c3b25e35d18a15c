// thread_team.h: native builds only -- the language model's training step
// with its batch split among threads, as grad_tree.h splits it among workers.
// The WebAssembly build has no threads (pthreads would need shared memory and
// so cross-origin isolation; the page's workers are Web Workers that exchange
// messages), so this file is compiled into a library of its own,
// attn_train_threads, which only native programs link (src/train/CMakeLists.txt).
//
//   ThreadTeam team(3);                       // the caller and 2 threads
//   CharLmTeamStep step;
//   float loss = step.run(model, windows, batch, team);
//
// Each worker w computes the share split_batch(B, workers)[w .. w+1] of the
// batch with a workspace of its own, reading the one model's weights; the
// calling thread then gathers the shares and takes the optimiser's step. The
// loss and every weight have the same bits for any number of workers.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "train/char_lm.h"
#include "train/grad_tree.h"

namespace attn::train {

// A fixed set of threads that run one job at a time: job(w) for every worker
// w = 0 .. size()-1, worker 0 on the calling thread.
class ThreadTeam {
 public:
  explicit ThreadTeam(int workers);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return int(threads_.size()) + 1; }
  // Returns when every worker has finished job.
  void run(const std::function<void(int worker)>& job);

 private:
  void loop(int worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  long generation_ = 0;  // which job the threads are on
  int running_ = 0;      // threads still on the current job
  bool stop_ = false;
};

// One CharLm training step on a team: the shares, their workspaces and the
// gathering, kept from step to step.
struct CharLmTeamStep {
  std::vector<GradientShare> shares;
  std::vector<CharLmWorkspace> workspaces;

  // The batch's mean loss; the model has taken its optimiser step.
  float run(CharLm& model, const std::vector<data::TextWindow>& set, const std::vector<int>& batch, ThreadTeam& team);
};

}  // namespace attn::train
