// main_loop_native.cpp: the desktop loop (a plain while; vsync paces it).
#include "platform/platform_internal.h"

namespace platform {

void run(FrameFn fn, void* user) {
  while (internal::frame(fn, user)) {
  }
  internal::shutdown();
}

}  // namespace platform
