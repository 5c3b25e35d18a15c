// thread_team.cpp: a small fixed team of threads, and the language model's
// step shared among it (see thread_team.h). Native builds only.
#include "train/thread_team.h"

namespace attn::train {

ThreadTeam::ThreadTeam(int workers) {
  for (int w = 1; w < workers; ++w) threads_.emplace_back([this, w] { loop(w); });
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadTeam::run(const std::function<void(int)>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    running_ = int(threads_.size());
    ++generation_;
  }
  start_.notify_all();
  job(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
}

void ThreadTeam::loop(int worker) {
  long seen = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    (*job)(worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
    }
    done_.notify_one();
  }
}

float CharLmTeamStep::run(CharLm& model, const std::vector<data::TextWindow>& set, const std::vector<int>& batch,
                          ThreadTeam& team) {
  const std::vector<int> bounds = split_batch(int(batch.size()), team.size());
  shares.resize(size_t(team.size()));
  workspaces.resize(size_t(team.size()));
  team.run([&](int w) {
    model.gradient_share(set, batch, bounds[size_t(w)], bounds[size_t(w) + 1], shares[size_t(w)], workspaces[size_t(w)]);
  });
  std::vector<GradientShare*> all;
  for (GradientShare& s : shares) all.push_back(&s);
  return model.apply_update(model.gather_shares(all, set, batch));
}

}  // namespace attn::train
