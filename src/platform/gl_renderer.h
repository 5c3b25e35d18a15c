// gl_renderer.h: draws Dear ImGui's draw lists with OpenGL 3.0 (native) or
// WebGL2 / GLES 3.0 (web).
//
// Why not ImGui's own OpenGL3 backend: it reads the GL state back every frame
// (scissor box and six blend values) to restore it afterwards. In a browser each
// of those reads is a round trip to the GPU process that waits until that process
// has finished all queued work, including compositing the previous frame, so the
// page's main thread stalls for most of a frame (measured: 24 ms of every frame
// in headless Chromium). The lab owns the whole GL context, so this renderer sets
// every piece of state it needs and never reads any back.
#pragma once

#include <string>

struct ImDrawData;

namespace platform::gl {

// Compiles the shaders and creates the buffers. Returns "" or a message.
std::string init();
// (Re)uploads ImGui's font atlas as a one-channel texture; call after the fonts change.
void upload_fonts();
// Draws one frame's lists into the current framebuffer (viewport and clear are the caller's).
void render(const ImDrawData* data);
void shutdown();

}  // namespace platform::gl
