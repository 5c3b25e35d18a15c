// platform_internal.h: shared between platform_sdl.cpp and the two main loops.
#pragma once

#include "platform/platform.h"

namespace platform::internal {

// Polls events, runs one ImGui frame around fn, renders and swaps.
// Returns false when the window was closed or fn asked to stop.
bool frame(FrameFn fn, void* user);
void shutdown();

}  // namespace platform::internal
