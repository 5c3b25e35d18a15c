// page_bridge.cpp: the one exported function window.attnlab calls (web/lab.js),
// and events sent back to the page. Natively both are inert.
#include "platform/platform.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

namespace {
platform::PageQueryFn g_fn = nullptr;
void* g_user = nullptr;
std::string g_answer;  // valid until the next query
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* lab_query(const char* name, const char* arg) {
  g_answer = g_fn ? g_fn(name, arg, g_user) : "null";
  return g_answer.c_str();
}

namespace platform {
void set_page_query_handler(PageQueryFn fn, void* user) {
  g_fn = fn;
  g_user = user;
}
void page_event(const char* name, const std::string& json_data) {
  EM_ASM({ if (Module.labEvent) Module.labEvent(UTF8ToString($0), JSON.parse(UTF8ToString($1))); }, name,
         json_data.c_str());
}
}  // namespace platform

#else

namespace platform {
void set_page_query_handler(PageQueryFn, void*) {}
void page_event(const char*, const std::string&) {}
}  // namespace platform

#endif
