// trainer_worker_web.cpp: the training worker module's side of the transport
// (web only; the module is built from app/trainer_main.cpp and loaded by
// web/trainer-worker.js): exports trainer_receive and trainer_tick to that
// script, and posts what the worker sends back to the page.
#include "platform/platform.h"

#include <emscripten.h>

#include <utility>

EM_JS(void, lab_worker_post, (const char* p, int n), {
  const b = HEAPU8.slice(p, p + n);
  postMessage(b.buffer, [b.buffer]);
});

namespace {
platform::TrainerWorkerFns g_fns;
void post_outbox() {
  if (!g_fns.take_outbox) return;
  for (const std::string& m : g_fns.take_outbox()) lab_worker_post(m.data(), int(m.size()));
}
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void trainer_receive(const char* p, int n) {
  if (g_fns.receive) g_fns.receive(std::string_view(p, size_t(n)));
  post_outbox();
}
extern "C" EMSCRIPTEN_KEEPALIVE double trainer_tick(double now_ms) {
  const double wait = g_fns.tick ? g_fns.tick(now_ms) : -1.0;
  post_outbox();
  return wait;
}

namespace platform {
void serve_trainer(TrainerWorkerFns fns) { g_fns = std::move(fns); }
}  // namespace platform

