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
EM_JS(void, lab_trainer_start, (), {
  if (Module.labTrainer) return;
  const t = Module.labTrainer = { inbox: [], failure: "", ready: false, worker: null };
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
});
EM_JS(void, lab_trainer_stop, (), {
  const t = Module.labTrainer;
  if (t && t.worker) t.worker.terminate();
  Module.labTrainer = null;
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
  WorkerLink() { lab_trainer_start(); }
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
};
}  // namespace

std::unique_ptr<TrainerLink> start_trainer(std::function<TrainerWorkerFns()>) { return std::make_unique<WorkerLink>(); }
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
// A thread that serves the worker the app made, waiting on its inbox while
// nothing runs (or for the pause of the slow speed).
class ThreadLink : public TrainerLink {
 public:
  explicit ThreadLink(std::function<TrainerWorkerFns()> make) : make_(std::move(make)), thread_([this] { loop(); }) {}
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

 private:
  void loop() {
    try {
      TrainerWorkerFns worker = make_();
      double wait = -1.0;
      for (;;) {
        std::deque<std::string> in;
        {
          std::unique_lock<std::mutex> lock(mu_);
          auto woken = [this] { return quit_ || !inbox_.empty(); };
          if (wait < 0.0) cv_.wait(lock, woken);
          else if (wait > 0.0) cv_.wait_for(lock, std::chrono::duration<double, std::milli>(wait), woken);
          if (quit_) return;
          in.swap(inbox_);
        }
        for (const std::string& m : in) worker.receive(m);
        wait = worker.tick(now_ms());
        std::vector<std::string> out = worker.take_outbox();
        std::lock_guard<std::mutex> lock(mu_);
        for (std::string& m : out) outbox_.push_back(std::move(m));
      }
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu_);
      failure_ = std::string("the training thread stopped: ") + e.what();
    }
  }

  std::function<TrainerWorkerFns()> make_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> inbox_, outbox_;
  std::string failure_;
  bool quit_ = false;
  std::thread thread_;  // last: started once everything it uses exists
};
}  // namespace

std::unique_ptr<TrainerLink> start_trainer(std::function<TrainerWorkerFns()> make_worker) {
  return std::make_unique<ThreadLink>(std::move(make_worker));
}
}  // namespace platform
#endif
