// main_loop_web.cpp: the browser loop. emscripten_set_main_loop hands each frame to
// requestAnimationFrame; no ASYNCIFY, no threads.
#include <emscripten.h>

#include "platform/platform_internal.h"

namespace platform {
namespace {
FrameFn g_fn = nullptr;
void* g_user = nullptr;
void tick() { internal::frame(g_fn, g_user); }
}  // namespace

void run(FrameFn fn, void* user) {
  g_fn = fn;
  g_user = user;
  emscripten_set_main_loop(tick, 0, 1);  // 0 = browser's frame rate; 1 = never return
}

}  // namespace platform
