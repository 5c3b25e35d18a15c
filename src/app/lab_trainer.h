// lab_trainer.h: the running lab's side of the training worker
// (experiments/trainer.h): starting it, taking what it sends every frame,
// watching that it lives, a retry after it failed, and the texts a step trains on
// (fetched by the page, handed to the worker). It knows nothing of lessons or of
// the lab's state: the lab asks, and recomputes what it shows when told that
// something changed. The worker's own side is trainer_worker.cpp.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "course/demo_api.h"
#include "experiments/trainer.h"
#include "platform/platform.h"

struct TrainerView;  // lab_view.h

class TrainerSide {
 public:
  // The worker's part of the view: started, ready, failed, workers, cores, and
  // for the step `key` whether the worker has answered its newest command.
  void fill_view(const std::string& key, TrainerView* v) const;
  // The client (made, with its worker, on first use).
  attn::TrainerClient& client();
  attn::TrainerClient* client_if_started() { return client_.get(); }
  bool started() const { return link_ != nullptr; }
  // Workers that train (the training worker and its helpers, platform.h): the
  // count the learner picked (at first, one fewer than the cores), and a new one.
  int workers() const { return workers_; }
  void set_workers(int workers);
  bool ready() const { return ready_; }
  const std::string& failed() const { return failed_; }

  // What one frame brought. `key` is the step whose experiment is shown.
  struct Pump {
    bool changed = false;       // the shown experiment or its texts changed: recompute
    std::optional<bool> running;  // whether the worker trains the shown experiment, when it said
    bool stopped = false;       // the worker was found dead this frame
    long snapshots = 0;         // snapshots for the shown experiment this frame
    std::vector<std::string> errors;  // what the worker reported failing
  };
  // Applies what the worker and the page's fetches sent; starts the worker in
  // the background once `frames` reaches a few dozen.
  Pump pump(double now_ms, long frames, const std::string& key);

  // A new worker after one failed (every experiment starts again). False when
  // the worker had not failed.
  bool retry();

  // Whether the text `demo` trains on (train_lm's corpus) is at hand: always
  // natively; in the page once fetched and handed to both sides. While it loads,
  // or after it failed, false, with a note about it put first in `outputs`.
  bool text_ready(const std::string& demo, const attn::DemoInputs& inputs, attn::DemoOutputs& outputs);
  // Fetch a text that failed again (Reset step).
  void forget_failed_texts() { text_failed_.clear(); }

 private:
  void start_link();
  bool poll_text();

  std::unique_ptr<platform::TrainerLink> link_;
  std::unique_ptr<attn::TrainerClient> client_;
  std::string failed_;
  bool ready_ = false;
  int workers_ = platform::suggested_workers();
  double started_at_ = 0.0, heard_at_ = 0.0, pinged_at_ = 0.0;
  // Texts on their way, why one failed, and the glyph fonts merged into the atlas.
  std::set<std::string> text_waiting_, glyphs_added_;
  std::map<std::string, std::string> text_failed_;
};
