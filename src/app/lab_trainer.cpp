// lab_trainer.cpp: the running lab's side of the training worker
// (lab/trainer.h): starting it, applying what it sends every frame, watching
// that it lives, and a retry after it failed. The worker's own side (what the
// native thread and the worker module run) is trainer_worker.cpp.
#include <memory>

#include "app/lab_app_internal.h"
#include "app/trainer_worker.h"

namespace {
constexpr double kPingEveryMs = 1000.0;
constexpr double kSilentLimitMs = 15000.0;   // no answer to pings for this long: stopped
constexpr double kStartLimitMs = 120000.0;   // not loaded after this long: failed to start
constexpr long kStartAfterFrames = 30;       // started in the background this long after the first frame

void start_link(LabApp& app) {
  app.trainer_link = platform::start_trainer(lab_trainer_worker);
  app.trainer_ready = false;
  app.trainer_started_at = app.trainer_heard_at = app.trainer_pinged_at = platform::now_ms();
}
}  // namespace

attn::TrainerClient& lab_trainer(LabApp& app) {
  if (!app.trainer) {
    if (!app.trainer_link) start_link(app);
    app.trainer = std::make_unique<attn::TrainerClient>([&app](std::string m) {
      if (app.trainer_link) app.trainer_link->post(std::move(m));
    });
  }
  return *app.trainer;
}

void lab_trainer_retry(LabApp& app) {
  if (app.trainer_failed.empty()) return;
  app.trainer_failed.clear();
  app.trainer_link.reset();  // the old worker is stopped first
  start_link(app);
  app.running = false;
  if (app.trainer) {
    app.trainer->reopen_all();
    app.experiment = app.trainer->experiment(app.experiment_key);
  }
  app.notices.push_back("The training worker was started again; the experiments start from the beginning.");
  lab_recompute(app);
}

void lab_trainer_pump(LabApp& app, double now) {
  if (!app.trainer_link) {
    // Loaded a moment after the first frame, so Start finds it ready.
    if (app.frames >= kStartAfterFrames) lab_trainer(app);
    return;
  }
  if (!app.trainer_failed.empty()) return;
  bool changed = false;
  for (std::string& m : app.trainer_link->receive()) {
    app.trainer_heard_at = now;
    if (!app.trainer) continue;
    if (const std::string key = app.trainer->receive(m); !key.empty() && key == app.experiment_key) {
      changed = true;
      ++app.trainer_snapshots;
    }
  }
  if (app.trainer)
    for (const std::string& f : app.trainer->take_failures()) app.errors.push_back("Training: " + f + ".");
  if (changed) {
    const bool was = app.running;
    app.running = app.trainer->running(app.experiment_key);
    if (was != app.running) ++app.revision;
    lab_recompute(app);
  }
  // Is it alive? A failure it reports, no answer to pings, or no start at all.
  std::string failed = app.trainer_link->failure();
  if (failed.empty() && app.trainer_link->ready()) {
    if (!app.trainer_ready) app.trainer_heard_at = now;  // its silence counts from here
    app.trainer_ready = true;
    if (now - app.trainer_pinged_at >= kPingEveryMs && app.trainer) {
      app.trainer->ping();
      app.trainer_pinged_at = now;
    }
    if (now - app.trainer_heard_at > kSilentLimitMs) failed = "the training worker stopped answering";
  } else if (failed.empty() && now - app.trainer_started_at > kStartLimitMs) {
    failed = "the training worker did not start";
  }
  if (!failed.empty()) {
    app.trainer_failed = failed;
    app.running = false;
    ++app.revision;
    lab_recompute(app);
  }
}
