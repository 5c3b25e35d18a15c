// platform.h: the only interface to SDL2, OpenGL/WebGL2 and Emscripten.
// Everything above this line (app, ui) sees an ImGui context and a frame callback.
#pragma once

#include <string>

namespace platform {

struct Desc {
  const char* title = "Attention Lab";
  int width = 1280;            // native window size in screen units (ignored on the web,
  int height = 800;            // where the canvas follows the page's CSS size)
  const char* font_path = "";  // TTF to load at the screen's pixel density ("" = ImGui default)
  float font_size = 16.0f;     // in screen units (CSS pixels on the web)
};

// Opens the window and GL context and sets up Dear ImGui with its SDL2 and OpenGL3
// backends. Returns an error message, or "" on success.
std::string init(const Desc& desc);

// Calls frame(user) once per displayed frame, between ImGui::NewFrame() and the
// render, until it returns false (native) or for ever (web). Returns after
// shutdown on native; on the web it hands control to the browser and never returns.
using FrameFn = bool (*)(void* user);
void run(FrameFn frame, void* user);

// Keys the lab binds directly. Presses are counted from the platform's events, so
// a tap shorter than one frame is never lost (ImGui 1.86 can miss those).
enum class Key { left, right };
// Times `key` went down since the previous frame (valid inside the frame callback).
int key_presses(Key key);

// Device pixels per screen unit (window.devicePixelRatio on the web).
float pixel_ratio();

// Milliseconds since start, monotonic, sub-millisecond resolution.
double now_ms();

}  // namespace platform
