// trainer_worker_web.cpp: the training worker module's side of the transport
// (web only; the module is built from app/trainer_main.cpp and loaded by
// web/trainer-worker.js). The same module is the training worker, talking to
// the page, or one of its helpers, talking to the training worker through a
// MessagePort (platform.h). It exports trainer_receive, trainer_tick,
// trainer_set_helpers and trainer_result to the training worker's script, and
// trainer_job to a helper's, and posts what goes out: the outbox to the page,
// jobs to the helpers' ports, a helper's result to its port.
#include "platform/platform.h"

#include <emscripten.h>

#include <utility>

// Module.labSend: to the page (trainer-worker.js sets it: a Web Worker's
// postMessage, or node's parentPort in the tests).
EM_JS(void, lab_worker_post, (const char* p, int n), {
  const b = HEAPU8.slice(p, p + n);
  if (Module.labSend) Module.labSend(b.buffer);
});
// Module.labHelpers: the ports to the helpers (trainer-worker.js); a helper that
// is gone drops its job, and the training worker computes that share itself
// once the page says the helpers changed.
EM_JS(void, lab_worker_post_job, (int helper, const char* p, int n), {
  const ports = Module.labHelpers || [];
  if (helper < 0 || helper >= ports.length) return;
  const b = HEAPU8.slice(p, p + n);
  try { ports[helper].postMessage(b.buffer, [b.buffer]); } catch (e) {}
});
EM_JS(void, lab_worker_reply, (const char* p, int n), {
  const port = Module.labCoordinator;
  if (!port) return;
  const b = HEAPU8.slice(p, p + n);
  try { port.postMessage(b.buffer, [b.buffer]); } catch (e) {}
});

namespace {
platform::TrainerWorkerFns g_fns;
void post_out() {
  if (g_fns.take_outbox)
    for (const std::string& m : g_fns.take_outbox()) lab_worker_post(m.data(), int(m.size()));
  if (g_fns.take_jobs)
    for (const auto& [helper, job] : g_fns.take_jobs()) lab_worker_post_job(helper, job.data(), int(job.size()));
}
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void trainer_receive(const char* p, int n) {
  if (g_fns.receive) g_fns.receive(std::string_view(p, size_t(n)));
  post_out();
}
extern "C" EMSCRIPTEN_KEEPALIVE double trainer_tick(double now_ms) {
  const double wait = g_fns.tick ? g_fns.tick(now_ms) : -1.0;
  post_out();
  return wait;
}
extern "C" EMSCRIPTEN_KEEPALIVE void trainer_set_helpers(int n) {
  if (g_fns.set_helpers) g_fns.set_helpers(n);
  post_out();
}
extern "C" EMSCRIPTEN_KEEPALIVE void trainer_result(const char* p, int n) {
  if (g_fns.receive_result) g_fns.receive_result(std::string_view(p, size_t(n)));
  post_out();
}
extern "C" EMSCRIPTEN_KEEPALIVE void trainer_job(const char* p, int n) {
  if (!g_fns.compute_job) return;
  const std::string result = g_fns.compute_job(std::string_view(p, size_t(n)));
  lab_worker_reply(result.data(), int(result.size()));
}

namespace platform {
void serve_trainer(TrainerWorkerFns fns) {
  g_fns = std::move(fns);
  if (g_fns.set_job_sender)
    g_fns.set_job_sender([](int helper, std::string job) { lab_worker_post_job(helper, job.data(), int(job.size())); });
}
}  // namespace platform
