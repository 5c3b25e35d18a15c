// trainer_link.cpp: the training worker's transport (platform.h, TrainerLink):
// natively a thread with a queue each way; in the page a plain Web Worker
// (web/trainer-worker.js, its own WebAssembly module, whose side is
// trainer_worker_web.cpp) spoken to with postMessage.
//
// What comes back from the worker is hostile until the protocol has checked it
// (lab/trainer.h): here only its transport shape is checked (an ArrayBuffer of
// at most kMaxMessage bytes, or a small {type} object), so nothing the worker
// sends can throw in the page.
#include "platform/platform.h"

#include <utility>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

#include <cstdlib>

// ---------------------------------------------------------------- the page's side
// Module.labTrainer: the training worker and its helpers. Each helper gets one
// end of a MessageChannel, the training worker the other ends (trainer-worker.js);
// a new count makes new helpers and hands the training worker their ports (the
// old helpers stop; the shares they had out are computed by the training worker).
EM_JS(void, lab_trainer_start, (int workers), {
  if (Module.labTrainer) return;
  const t = Module.labTrainer = { inbox: [], failure: "", ready: false, worker: null, helpers: [], workers: 1 };
  const kMaxMessage = 64 * 1024 * 1024;
  const fail = (why) => { if (!t.failure) t.failure = String(why).slice(0, 300) || "unknown error"; };
  try {
    const w = t.worker = new Worker("trainer-worker.js");
    w.onmessage = (e) => {
      const d = e.data;
      if (d instanceof ArrayBuffer) {
        if (d.byteLength <= kMaxMessage) t.inbox.push(new Uint8Array(d));
      } else if (d && typeof d === "object" && d.type === "ready") {
        t.ready = true;
      } else if (d && typeof d === "object" && d.type === "failed") {
        fail(typeof d.why === "string" ? d.why : "the training worker failed");
      }
    };
    w.onerror = (e) => { fail("the training worker stopped: " + (e && e.message ? e.message : "an error")); if (e) e.preventDefault(); };
    w.onmessageerror = () => fail("a message from the training worker could not be read");
  } catch (e) {
    fail("the training worker could not start: " + (e && e.message ? e.message : e));
  }
  // Helpers, and a new set of them when one fails (the training worker does their
  // shares meanwhile; after three failures the lab trains on one worker).
  t.setWorkers = (n) => {
    n = Math.max(1, Math.min(8, n | 0));
    for (const h of t.helpers) h.terminate();
    t.helpers = [];
    t.workers = n;
    if (!t.worker || t.failure) return;
    const ports = [];
    for (let i = 1; i < n; i++) {
      try {
        const h = new Worker("trainer-worker.js");
        const ch = new MessageChannel();
        h.postMessage({ type: "helper", port: ch.port2 }, [ch.port2]);
        h.onerror = (e) => {
          if (e) e.preventDefault();
          t.helperFailures = (t.helperFailures || 0) + 1;
          if (t.helpers.indexOf(h) >= 0) t.setWorkers(t.helperFailures >= 3 ? 1 : t.workers);
        };
        t.helpers.push(h);
        ports.push(ch.port1);
      } catch (e) {
        break;  // fewer helpers than asked: the training worker uses those it has
      }
    }
    t.worker.postMessage({ type: "helpers", ports }, ports);
  };
  t.setWorkers(workers);
});
EM_JS(void, lab_trainer_stop, (), {
  const t = Module.labTrainer;
  if (t && t.worker) t.worker.terminate();
  if (t) for (const h of t.helpers) h.terminate();
  Module.labTrainer = null;
});
EM_JS(void, lab_trainer_set_workers, (int n), {
  const t = Module.labTrainer;
  if (t && t.setWorkers) t.setWorkers(n);
});
EM_JS(int, lab_trainer_workers, (), {
  const t = Module.labTrainer;
  return t ? 1 + t.helpers.length : 1;
});
EM_JS(int, lab_cores, (), {
  const n = typeof navigator !== "undefined" ? Number(navigator.hardwareConcurrency) : 1;
  return Number.isFinite(n) && n >= 1 ? Math.min(256, Math.floor(n)) : 1;
});
EM_JS(void, lab_trainer_post, (const char* p, int n), {
  const t = Module.labTrainer;
  if (!t || !t.worker || t.failure) return;
  const b = HEAPU8.slice(p, p + n);
  try { t.worker.postMessage(b.buffer, [b.buffer]); } catch (e) { t.failure = "the training worker cannot be reached"; }
});
EM_JS(int, lab_trainer_next_size, (), {
  const t = Module.labTrainer;
  return t && t.inbox.length ? t.inbox[0].length : -1;
});
EM_JS(void, lab_trainer_take, (char* p), { HEAPU8.set(Module.labTrainer.inbox.shift(), p); });
EM_JS(int, lab_trainer_ready, (), { return Module.labTrainer && Module.labTrainer.ready ? 1 : 0; });
EM_JS(char*, lab_trainer_failure, (), {
  const f = Module.labTrainer ? Module.labTrainer.failure : "the training worker is gone";
  const n = lengthBytesUTF8(f) + 1, p = _malloc(n);
  stringToUTF8(f, p, n);
  return p;
});

namespace platform {
namespace {
class WorkerLink : public TrainerLink {
 public:
  explicit WorkerLink(int workers) { lab_trainer_start(workers); }
  ~WorkerLink() override { lab_trainer_stop(); }
  void post(std::string message) override { lab_trainer_post(message.data(), int(message.size())); }
  std::vector<std::string> receive() override {
    std::vector<std::string> out;
    for (int n; (n = lab_trainer_next_size()) >= 0;) {
      std::string m(size_t(n), '\0');
      lab_trainer_take(m.data());
      out.push_back(std::move(m));
    }
    return out;
  }
  std::string failure() const override {
    char* f = lab_trainer_failure();
    std::string s = f;
    std::free(f);
    return s;
  }
  bool ready() const override { return lab_trainer_ready() == 1; }
  void set_workers(int workers) override { lab_trainer_set_workers(workers); }
  int workers() const override { return lab_trainer_workers(); }
};
}  // namespace

int cores() { return lab_cores(); }

std::unique_ptr<TrainerLink> start_trainer(std::function<TrainerWorkerFns()>, int workers) {
  return std::make_unique<WorkerLink>(workers);
}
}  // namespace platform

#else
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace platform {
namespace {
// A helper thread (platform.h): takes jobs from its queue, computes each with a
// worker of its own, and hands the results to `done`.
class HelperThread {
 public:
  HelperThread(std::function<TrainerWorkerFns()> make, std::function<void(std::string)> done)
      : make_(std::move(make)), done_(std::move(done)), thread_([this] { loop(); }) {}
  ~HelperThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void post(std::string job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    TrainerWorkerFns fns = make_();
    for (;;) {
      std::string job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return quit_ || !jobs_.empty(); });
        if (quit_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      done_(fns.compute_job(job));
    }
  }

  std::function<TrainerWorkerFns()> make_;
  std::function<void(std::string)> done_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> jobs_;
  bool quit_ = false;
  std::thread thread_;  // last: started once everything it uses exists
};

// A thread that serves the worker the app made, waiting on its inbox while
// nothing runs (or for the pause of the slow speed), with helper threads.
class ThreadLink : public TrainerLink {
 public:
  ThreadLink(std::function<TrainerWorkerFns()> make, int workers)
      : make_(std::move(make)), wanted_(workers), thread_([this] { loop(); }) {}
  ~ThreadLink() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void post(std::string message) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      inbox_.push_back(std::move(message));
    }
    cv_.notify_one();
  }
  std::vector<std::string> receive() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out(std::make_move_iterator(outbox_.begin()), std::make_move_iterator(outbox_.end()));
    outbox_.clear();
    return out;
  }
  std::string failure() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
  }
  bool ready() const override { return true; }
  void set_workers(int workers) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      wanted_ = workers;
    }
    cv_.notify_one();
  }
  int workers() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return wanted_ < 1 ? 1 : wanted_ > kMaxTrainerWorkers ? kMaxTrainerWorkers : wanted_;
  }

 private:
  void loop() {
    try {
      TrainerWorkerFns worker = make_();
      std::vector<std::unique_ptr<HelperThread>> helpers;
      if (worker.set_job_sender)  // a job leaves the moment it is made
        worker.set_job_sender([&helpers](int h, std::string job) {
          if (h >= 0 && size_t(h) < helpers.size()) helpers[size_t(h)]->post(std::move(job));
        });
      int have = -1;  // helpers + 1 the worker was told of
      double wait = -1.0;
      for (;;) {
        std::deque<std::string> in, results;
        int want = 1;
        {
          std::unique_lock<std::mutex> lock(mu_);
          auto woken = [&] { return quit_ || !inbox_.empty() || !results_.empty() || workers_changed(have); };
          if (wait < 0.0) cv_.wait(lock, woken);
          else if (wait > 0.0) cv_.wait_for(lock, std::chrono::duration<double, std::milli>(wait), woken);
          if (quit_) return;
          in.swap(inbox_);
          results.swap(results_);
          want = wanted_ < 1 ? 1 : wanted_ > kMaxTrainerWorkers ? kMaxTrainerWorkers : wanted_;
        }
        if (want != have) {  // the old helpers stop first; their shares are done here
          helpers.clear();
          worker.set_helpers(want - 1);
          for (int h = 1; h < want; ++h)
            helpers.push_back(std::make_unique<HelperThread>(make_, [this](std::string r) {
              {
                std::lock_guard<std::mutex> lock(mu_);
                results_.push_back(std::move(r));
              }
              cv_.notify_one();
            }));
          have = want;
          results.clear();  // answers from helpers that are gone
        }
        for (const std::string& m : in) worker.receive(m);
        for (const std::string& r : results) worker.receive_result(r);
        wait = worker.tick(now_ms());
        for (auto& [h, job] : worker.take_jobs())
          if (h >= 0 && size_t(h) < helpers.size()) helpers[size_t(h)]->post(std::move(job));
        std::vector<std::string> out = worker.take_outbox();
        std::lock_guard<std::mutex> lock(mu_);
        for (std::string& m : out) outbox_.push_back(std::move(m));
      }
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu_);
      failure_ = std::string("the training thread stopped: ") + e.what();
    }
  }
  bool workers_changed(int have) const { return have != (wanted_ < 1 ? 1 : wanted_ > kMaxTrainerWorkers ? kMaxTrainerWorkers : wanted_); }

  std::function<TrainerWorkerFns()> make_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> inbox_, outbox_, results_;
  std::string failure_;
  int wanted_ = 1;
  bool quit_ = false;
  std::thread thread_;  // last: started once everything it uses exists
};
}  // namespace

int cores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n >= 1 ? int(n) : 1;
}

std::unique_ptr<TrainerLink> start_trainer(std::function<TrainerWorkerFns()> make_worker, int workers) {
  return std::make_unique<ThreadLink>(std::move(make_worker), workers);
}
}  // namespace platform
#endif

namespace platform {
int suggested_workers() {
  const int n = cores() - 1;
  return n < 1 ? 1 : n > kMaxTrainerWorkers ? kMaxTrainerWorkers : n;
}
}  // namespace platform
