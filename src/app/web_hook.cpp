// web_hook.cpp: C functions exported to JavaScript for window.attnlab (see
// web/lab.js and the README's developer section). Each returns JSON text that
// stays valid until the next call.
#include "app/web_hook.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

namespace {
LabApp* g_app = nullptr;
std::string g_out;
const char* out(const attn::json::Value& v) {
  g_out = attn::json::write(v);
  return g_out.c_str();
}
}  // namespace

extern "C" {
EMSCRIPTEN_KEEPALIVE const char* lab_lessons_json_c() { return out(lab_lessons_json(*g_app)); }
EMSCRIPTEN_KEEPALIVE const char* lab_state_json_c() { return out(lab_state_json(*g_app)); }
EMSCRIPTEN_KEEPALIVE const char* lab_widgets_json_c() { return out(lab_widgets_json()); }
EMSCRIPTEN_KEEPALIVE const char* lab_errors_json_c() { return out(lab_errors_json(*g_app)); }
EMSCRIPTEN_KEEPALIVE int lab_goto_c(const char* lesson, int step) { return lab_goto(*g_app, lesson, step) ? 1 : 0; }
EMSCRIPTEN_KEEPALIVE int lab_load_lesson_c(const char* file, const char* text) {
  return lab_load_lesson_text(*g_app, file, text) ? 1 : 0;
}
}

void web_hook_install(LabApp& app) { g_app = &app; }

void web_hook_after_frame(const LabApp& app) {
  if (app.frames == 1) EM_ASM({ if (Module.labFirstFrame) Module.labFirstFrame(); });
}

void web_hook_fatal(const std::string& message) {
  EM_ASM({ if (Module.labFatal) Module.labFatal(UTF8ToString($0)); }, message.c_str());
}

#else

void web_hook_install(LabApp&) {}
void web_hook_after_frame(const LabApp&) {}
void web_hook_fatal(const std::string&) {}

#endif
