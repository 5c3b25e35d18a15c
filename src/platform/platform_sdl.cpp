// platform_sdl.cpp: SDL2 window + OpenGL 3.0 (native) or WebGL2 / GLES 3.0 (web),
// Dear ImGui's SDL2 backend with the lab's own GL renderer (gl_renderer.h), and one frame of event handling and rendering.
// The loop itself is in main_loop_native.cpp or main_loop_web.cpp (chosen by CMake).
#include "platform/platform.h"
#include "platform/platform_internal.h"
#include "platform/gl_renderer.h"

#include <SDL.h>
#include <imgui.h>
#include <imgui_impl_sdl.h>

#if defined(__EMSCRIPTEN__)
#include <SDL_opengles2.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#else
#include <SDL_opengl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace platform {
namespace {

SDL_Window* g_window = nullptr;
SDL_GLContext g_gl = nullptr;
Desc g_desc;
int g_presses[int(Key::count)] = {};  // indexed by Key, counted per frame
bool g_touch = false;  // the last pointer event came from a finger
std::vector<SDL_Event> g_held_releases;  // key releases delivered to ImGui next frame
float g_font_ratio = 0.0f;  // pixel ratio the fonts were last rasterised for
// Fonts added after start (add_glyphs): their bytes, kept for every rebuild, and
// the characters to take from each ("" for every CJK character it has).
struct ExtraFont {
  std::string bytes, only;
};
std::vector<std::unique_ptr<ExtraFont>> g_extra_fonts;
const auto g_start = std::chrono::steady_clock::now();
// Drawing only what changed (see draw_if_changed): the last frame drawn, as bytes,
// and how many frames were drawn.
std::vector<unsigned char> g_drawn_bytes, g_frame_bytes;
int g_drawn_w = -1, g_drawn_h = -1;
double g_drawn_at_ms = -1e9;
long g_frames_drawn = 0;
bool g_force_draw = true;

// Rasterise the UI font at the screen's real pixel density, then scale it back
// down, so text stays sharp on high-DPI screens instead of being upscaled.
void build_fonts(float ratio) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFont* font = nullptr;
  if (g_desc.font_path && *g_desc.font_path) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    // Latin, Greek (alpha, Sigma), punctuation, arrows and maths symbols: the
    // ranges the UI font subset keeps (see src/app/CMakeLists.txt).
    static const ImWchar kRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2010, 0x2027,
                                      0x2190, 0x21FF, 0x2200, 0x22FF, 0};
    font = io.Fonts->AddFontFromFileTTF(g_desc.font_path, g_desc.font_size * ratio, &cfg, kRanges);
    if (!font) std::fprintf(stderr, "platform: could not load font %s, using the default\n", g_desc.font_path);
  }
  if (!font) {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.0f * ratio);
    io.Fonts->AddFontDefault(&cfg);
  } else if (g_desc.cjk_font_path && *g_desc.cjk_font_path) {
    // Only the characters the lessons and labels use (the build lists them), so the
    // atlas stays small.
    std::string glyphs;
    if (FILE* f = std::fopen(g_desc.cjk_glyphs_path, "rb")) {
      char buf[4096];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) glyphs.append(buf, n);
      std::fclose(f);
    }
    static ImVector<ImWchar> ranges;
    ranges.clear();
    ImFontGlyphRangesBuilder builder;
    builder.AddText(glyphs.c_str());
    builder.BuildRanges(&ranges);
    ImFontConfig cfg;
    cfg.MergeMode = true;
    cfg.OversampleH = 1;
    // At the same pixel size a CJK ideograph looks smaller than the Latin text around
    // it (its strokes fill a square em box; Latin capitals fill ~0.7 of the em), so
    // it is rasterised a little larger, on the same baseline.
    constexpr float kCjkScale = 1.12f;
    if (!io.Fonts->AddFontFromFileTTF(g_desc.cjk_font_path, g_desc.font_size * kCjkScale * ratio, &cfg, ranges.Data))
      std::fprintf(stderr, "platform: could not load font %s; Chinese text will not show\n", g_desc.cjk_font_path);
    // Fonts added later: every character of the CJK blocks they hold (a
    // character the font lacks is skipped; one already in the atlas is kept).
    static const ImWchar kCjkRanges[] = {0x3000, 0x30FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xFF00, 0xFFEF, 0};
    static std::vector<ImVector<ImWchar>> only_ranges;
    only_ranges.clear();
    only_ranges.reserve(g_extra_fonts.size());
    for (const auto& f : g_extra_fonts) {
      ImFontConfig extra = cfg;
      extra.FontDataOwnedByAtlas = false;  // the bytes stay in g_extra_fonts
      const ImWchar* ranges = kCjkRanges;
      if (!f->only.empty()) {
        ImFontGlyphRangesBuilder b;
        b.AddText(f->only.c_str());
        only_ranges.emplace_back();
        b.BuildRanges(&only_ranges.back());
        ranges = only_ranges.back().Data;
      }
      io.Fonts->AddFontFromMemoryTTF(f->bytes.data(), int(f->bytes.size()), g_desc.font_size * kCjkScale * ratio, &extra,
                                     ranges);
    }
  }
  // The code font last, as a font of its own (the merges above went into the first).
  if (font && g_desc.mono_font_path && *g_desc.mono_font_path) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    static const ImWchar kAscii[] = {0x0020, 0x007E, 0};
    if (!io.Fonts->AddFontFromFileTTF(g_desc.mono_font_path, g_desc.font_size * 0.94f * ratio, &cfg, kAscii))
      std::fprintf(stderr, "platform: could not load font %s; code shows in the UI font\n", g_desc.mono_font_path);
  }
  io.FontGlobalScale = 1.0f / ratio;
  gl::upload_fonts();
  g_font_ratio = ratio;
  g_force_draw = true;  // the same vertices may now sample new glyphs
}

}  // namespace

bool add_glyphs(std::string font_bytes, std::string only) {
  // An OpenType (CFF: "OTTO") or TrueType (0x00010000, "true") file, checked by
  // its first four bytes before ImGui's rasteriser reads it.
  if (font_bytes.size() < 12 || font_bytes.size() > (size_t(16) << 20) || only.size() > (size_t(4) << 20)) return false;
  const std::string tag = font_bytes.substr(0, 4);
  if (tag != "OTTO" && tag != std::string("\0\1\0\0", 4) && tag != "true") return false;
  g_extra_fonts.push_back(std::make_unique<ExtraFont>(ExtraFont{std::move(font_bytes), std::move(only)}));
  g_font_ratio = -1.0f;  // built again before the next frame
  return true;
}

bool can_draw(uint32_t c) {
  if (c > 0xFFFF || !ImGui::GetCurrentContext()) return false;
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  if (atlas->Fonts.empty()) return false;
  return atlas->Fonts[0]->FindGlyphNoFallback(ImWchar(c)) != nullptr;
}

namespace {

// The lab's key for an SDL key, or Key::count for the others.
Key lab_key(SDL_Keycode sym) {
  switch (sym) {
    case SDLK_LEFT: return Key::left;
    case SDLK_RIGHT: return Key::right;
    case SDLK_PAGEUP: return Key::page_up;
    case SDLK_PAGEDOWN: return Key::page_down;
    case SDLK_F1: return Key::f1;
    case SDLK_ESCAPE: return Key::escape;
    default: return Key::count;
  }
}

// Arrows and page keys belong to ImGui while one of its controls has the keyboard
// (decided on the state the previous frame left).
bool keyboard_free_for_lab(Key k) {
  if (k == Key::f1 || k == Key::escape) return true;
  const ImGuiIO& io = ImGui::GetIO();
  return !io.NavVisible && !io.WantTextInput && !ImGui::IsAnyItemActive();
}

// One event: counted for the lab, passed to ImGui, or both. A key released in
// the same frame it went down reaches ImGui one frame later.
void handle_key_event(const SDL_Event& e, std::vector<SDL_Scancode>& down_this_frame) {
  const Key k = lab_key(e.key.keysym.sym);
  if (e.type == SDL_KEYDOWN && k != Key::count && keyboard_free_for_lab(k)) {
    ++g_presses[int(k)];
    if (k != Key::f1 && k != Key::escape) return;  // the lab's alone
  }
  const SDL_Scancode sc = e.key.keysym.scancode;
  if (e.type == SDL_KEYUP &&
      std::find(down_this_frame.begin(), down_this_frame.end(), sc) != down_this_frame.end()) {
    g_held_releases.push_back(e);
    return;
  }
  if (e.type == SDL_KEYDOWN) down_this_frame.push_back(sc);
  ImGui_ImplSDL2_ProcessEvent(&e);
}

}  // namespace

std::string init(const Desc& desc) {
  g_desc = desc;
  if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) return std::string("SDL_Init failed: ") + SDL_GetError();

#if defined(__EMSCRIPTEN__)
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  // The canvas is sized by CSS; SDL then follows it (and devicePixelRatio) on resize.
  int w = 0, h = 0;
  {
    double cw = 0, ch = 0;
    emscripten_get_element_css_size("#canvas", &cw, &ch);
    w = int(cw), h = int(ch);
  }
#else
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  int w = desc.width, h = desc.height;
#endif
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 8);
  const auto flags = SDL_WindowFlags(SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  g_window = SDL_CreateWindow(desc.title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h, flags);
  if (!g_window) return std::string("SDL_CreateWindow failed: ") + SDL_GetError();
  g_gl = SDL_GL_CreateContext(g_window);
  if (!g_gl) return std::string("could not create an OpenGL context: ") + SDL_GetError();
  SDL_GL_MakeCurrent(g_window, g_gl);
  SDL_GL_SetSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout is ours; the learner's state is saved by the app
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  ImGui_ImplSDL2_InitForOpenGL(g_window, g_gl);
  if (std::string e = gl::init(); !e.empty()) return e;
  build_fonts(pixel_ratio());
  return "";
}

float pixel_ratio() {
#if defined(__EMSCRIPTEN__)
  return float(emscripten_get_device_pixel_ratio());
#else
  int ww = 0, dw = 0, hh = 0, dh = 0;
  SDL_GetWindowSize(g_window, &ww, &hh);
  SDL_GL_GetDrawableSize(g_window, &dw, &dh);
  float ratio = ww > 0 ? float(dw) / float(ww) : 1.0f;
  // Xorg reports 1:1 drawables; honour the monitor's DPI instead (96 dpi = 1.0).
  float ddpi = 0;
  if (ratio == 1.0f && SDL_GetDisplayDPI(0, &ddpi, nullptr, nullptr) == 0 && ddpi > 120.0f) ratio = ddpi / 96.0f;
  return ratio;
#endif
}

int key_presses(Key key) { return g_presses[int(key)]; }

bool pointer_is_touch() { return g_touch; }

bool running_in_browser() {
#if defined(__EMSCRIPTEN__)
  return true;
#else
  return false;
#endif
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_start).count();
}

namespace {

void append(std::vector<unsigned char>& out, const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  out.insert(out.end(), b, b + n);
}

// Whether this frame must be drawn: a frame whose draw lists (vertices, indices,
// commands, textures, clip rectangles) and drawable size are byte for byte those
// of the last frame drawn looks the same, so it is not drawn again. The canvas, or
// the window, keeps showing the last frame; a lesson that is only being read costs
// a phone's or laptop's GPU nothing. Copying and comparing the lists costs far
// less than drawing them (a few hundred kilobytes against a full-screen
// rasterisation, in software on some machines). A drawing is still made every
// second, and after the fonts change, in case something outside the lists (a
// texture's contents) changed.
bool draw_if_changed(const ImDrawData* data, int dw, int dh) {
  g_frame_bytes.clear();
  if (data) {
    append(g_frame_bytes, &data->DisplayPos, sizeof(data->DisplayPos));
    append(g_frame_bytes, &data->DisplaySize, sizeof(data->DisplaySize));
    append(g_frame_bytes, &data->FramebufferScale, sizeof(data->FramebufferScale));
    for (int i = 0; i < data->CmdListsCount; ++i) {
      const ImDrawList* list = data->CmdLists[i];
      const int counts[3] = {list->VtxBuffer.Size, list->IdxBuffer.Size, list->CmdBuffer.Size};
      append(g_frame_bytes, counts, sizeof(counts));
      append(g_frame_bytes, list->VtxBuffer.Data, sizeof(ImDrawVert) * size_t(list->VtxBuffer.Size));
      append(g_frame_bytes, list->IdxBuffer.Data, sizeof(ImDrawIdx) * size_t(list->IdxBuffer.Size));
      for (const ImDrawCmd& cmd : list->CmdBuffer) {
        append(g_frame_bytes, &cmd.ClipRect, sizeof(cmd.ClipRect));
        append(g_frame_bytes, &cmd.TextureId, sizeof(cmd.TextureId));
        append(g_frame_bytes, &cmd.VtxOffset, sizeof(cmd.VtxOffset));
        append(g_frame_bytes, &cmd.IdxOffset, sizeof(cmd.IdxOffset));
        append(g_frame_bytes, &cmd.ElemCount, sizeof(cmd.ElemCount));
        const bool callback = cmd.UserCallback != nullptr;
        append(g_frame_bytes, &callback, sizeof(callback));
        if (callback) g_force_draw = true;  // a callback may draw anything
      }
    }
  }
  const double t = now_ms();
  const bool same = !g_force_draw && dw == g_drawn_w && dh == g_drawn_h && t - g_drawn_at_ms < 1000.0 &&
                    g_frame_bytes == g_drawn_bytes;
  if (same) return false;
  std::swap(g_drawn_bytes, g_frame_bytes);
  g_drawn_w = dw;
  g_drawn_h = dh;
  g_drawn_at_ms = t;
  g_force_draw = false;
  ++g_frames_drawn;
  return true;
}

}  // namespace

long frames_drawn() { return g_frames_drawn; }

namespace internal {

bool frame(FrameFn fn, void* user) {
  bool keep = true;
  SDL_Event e;
  std::fill(std::begin(g_presses), std::end(g_presses), 0);
  const std::vector<SDL_Event> held = std::move(g_held_releases);
  g_held_releases.clear();
  for (const SDL_Event& r : held) ImGui_ImplSDL2_ProcessEvent(&r);
  std::vector<SDL_Scancode> down_this_frame;
  while (SDL_PollEvent(&e)) {
    if (e.type == SDL_KEYDOWN || e.type == SDL_KEYUP) handle_key_event(e, down_this_frame);
    else ImGui_ImplSDL2_ProcessEvent(&e);
    if (e.type == SDL_FINGERDOWN || e.type == SDL_FINGERMOTION) g_touch = true;
    if ((e.type == SDL_MOUSEMOTION && e.motion.which != SDL_TOUCH_MOUSEID) ||
        (e.type == SDL_MOUSEBUTTONDOWN && e.button.which != SDL_TOUCH_MOUSEID))
      g_touch = false;
    if (e.type == SDL_QUIT) keep = false;
    if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE &&
        e.window.windowID == SDL_GetWindowID(g_window))
      keep = false;
  }
  const float ratio = pixel_ratio();
  if (std::abs(ratio - g_font_ratio) > 0.01f) build_fonts(ratio);

  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
  if (!fn(user)) keep = false;
  ImGui::Render();

  int dw = 0, dh = 0;
  SDL_GL_GetDrawableSize(g_window, &dw, &dh);
  if (draw_if_changed(ImGui::GetDrawData(), dw, dh)) {
    glViewport(0, 0, dw, dh);
    glClearColor(1.0f, 1.0f, 1.0f, 1.0f);  // the windows' background (theme.cpp)
    glClear(GL_COLOR_BUFFER_BIT);
    gl::render(ImGui::GetDrawData());
    SDL_GL_SwapWindow(g_window);
  } else {
#if !defined(__EMSCRIPTEN__)
    SDL_Delay(15);  // no swap, so no vsync to wait for: keep the loop near 60 Hz, not spinning
#endif
  }
  return keep;
}

void shutdown() {
  gl::shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  SDL_GL_DeleteContext(g_gl);
  SDL_DestroyWindow(g_window);
  SDL_Quit();
}

}  // namespace internal
}  // namespace platform
