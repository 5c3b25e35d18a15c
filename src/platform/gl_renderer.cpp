// gl_renderer.cpp: see gl_renderer.h. One program (position, texture coordinate,
// colour), one vertex array with a vertex and an index buffer, and the font atlas
// as an R8 texture whose red channel is the glyph coverage.
#include "platform/gl_renderer.h"

#include <imgui.h>

#if defined(__EMSCRIPTEN__)
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES 1
#include <SDL_opengl.h>
#endif

#include <cstddef>
#include <cstdint>

namespace platform::gl {
namespace {

#if defined(__EMSCRIPTEN__)
constexpr const char* kVertexHeader = "#version 300 es\n";
constexpr const char* kFragmentHeader = "#version 300 es\nprecision mediump float;\n";
#else
constexpr const char* kVertexHeader = "#version 130\n";
constexpr const char* kFragmentHeader = "#version 130\n";
#endif

constexpr const char* kVertexBody = R"(
uniform mat4 u_proj;
in vec2 a_pos;
in vec2 a_uv;
in vec4 a_col;
out vec2 v_uv;
out vec4 v_col;
void main() {
  v_uv = a_uv;
  v_col = a_col;
  gl_Position = u_proj * vec4(a_pos, 0.0, 1.0);
}
)";

// The atlas holds coverage only; ImGui's white pixel has coverage 1.
constexpr const char* kFragmentBody = R"(
uniform sampler2D u_tex;
in vec2 v_uv;
in vec4 v_col;
out vec4 o_col;
void main() {
  o_col = vec4(v_col.rgb, v_col.a * texture(u_tex, v_uv).r);
}
)";

enum Attribute : GLuint { kPos = 0, kUv = 1, kCol = 2 };

GLuint g_program = 0, g_vao = 0, g_vbo = 0, g_ebo = 0, g_font = 0;
GLint g_loc_proj = -1, g_loc_tex = -1;

std::string compile(GLenum kind, const char* header, const char* body, GLuint* out) {
  const GLuint s = glCreateShader(kind);
  const char* parts[2] = {header, body};
  glShaderSource(s, 2, parts, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(s, sizeof log - 1, nullptr, log);
    glDeleteShader(s);
    return std::string(kind == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader did not compile: " + log;
  }
  *out = s;
  return "";
}

// Everything the draw calls depend on, set outright (the state is never read back).
void set_state(const ImDrawData* d, int fb_w, int fb_h) {
  glViewport(0, 0, fb_w, fb_h);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glUseProgram(g_program);
  // Orthographic projection of ImGui's display rectangle onto clip space, y down.
  const float l = d->DisplayPos.x, r = d->DisplayPos.x + d->DisplaySize.x;
  const float t = d->DisplayPos.y, b = d->DisplayPos.y + d->DisplaySize.y;
  const float proj[16] = {2.0f / (r - l), 0, 0, 0,  //
                          0, 2.0f / (t - b), 0, 0,  //
                          0, 0, -1.0f, 0,           //
                          (r + l) / (l - r), (t + b) / (b - t), 0, 1.0f};
  glUniformMatrix4fv(g_loc_proj, 1, GL_FALSE, proj);
  glUniform1i(g_loc_tex, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(g_vao);
  glBindBuffer(GL_ARRAY_BUFFER, g_vbo);
}

}  // namespace

std::string init() {
  GLuint vs = 0, fs = 0;
  if (std::string e = compile(GL_VERTEX_SHADER, kVertexHeader, kVertexBody, &vs); !e.empty()) return e;
  if (std::string e = compile(GL_FRAGMENT_SHADER, kFragmentHeader, kFragmentBody, &fs); !e.empty()) {
    glDeleteShader(vs);
    return e;
  }
  g_program = glCreateProgram();
  glAttachShader(g_program, vs);
  glAttachShader(g_program, fs);
  glBindAttribLocation(g_program, kPos, "a_pos");
  glBindAttribLocation(g_program, kUv, "a_uv");
  glBindAttribLocation(g_program, kCol, "a_col");
  glLinkProgram(g_program);
  glDetachShader(g_program, vs);
  glDetachShader(g_program, fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(g_program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetProgramInfoLog(g_program, sizeof log - 1, nullptr, log);
    return std::string("the UI shaders did not link: ") + log;
  }
  g_loc_proj = glGetUniformLocation(g_program, "u_proj");
  g_loc_tex = glGetUniformLocation(g_program, "u_tex");

  glGenVertexArrays(1, &g_vao);
  glGenBuffers(1, &g_vbo);
  glGenBuffers(1, &g_ebo);
  glBindVertexArray(g_vao);
  glBindBuffer(GL_ARRAY_BUFFER, g_vbo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g_ebo);  // kept by the vertex array
  glEnableVertexAttribArray(kPos);
  glEnableVertexAttribArray(kUv);
  glEnableVertexAttribArray(kCol);
  const GLsizei stride = sizeof(ImDrawVert);
  glVertexAttribPointer(kPos, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(ImDrawVert, pos)));
  glVertexAttribPointer(kUv, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(ImDrawVert, uv)));
  glVertexAttribPointer(kCol, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<void*>(offsetof(ImDrawVert, col)));
  glBindVertexArray(0);

  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "attnlab_gl";
  return "";
}

void upload_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsAlpha8(&pixels, &w, &h);
  if (!g_font) glGenTextures(1, &g_font);
  glBindTexture(GL_TEXTURE_2D, g_font);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(g_font)));
}

void render(const ImDrawData* d) {
  const int fb_w = int(d->DisplaySize.x * d->FramebufferScale.x);
  const int fb_h = int(d->DisplaySize.y * d->FramebufferScale.y);
  if (fb_w <= 0 || fb_h <= 0 || !g_program) return;
  set_state(d, fb_w, fb_h);
  const ImVec2 origin = d->DisplayPos, scale = d->FramebufferScale;
  const GLenum index_type = sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
  for (int n = 0; n < d->CmdListsCount; ++n) {
    const ImDrawList* list = d->CmdLists[n];
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(list->VtxBuffer.Size) * GLsizeiptr(sizeof(ImDrawVert)),
                 list->VtxBuffer.Data, GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(list->IdxBuffer.Size) * GLsizeiptr(sizeof(ImDrawIdx)),
                 list->IdxBuffer.Data, GL_STREAM_DRAW);
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState) set_state(d, fb_w, fb_h);
        else cmd.UserCallback(list, &cmd);
        continue;
      }
      // Clip rectangle in framebuffer pixels; GL's scissor origin is bottom-left.
      const float x0 = (cmd.ClipRect.x - origin.x) * scale.x, y0 = (cmd.ClipRect.y - origin.y) * scale.y;
      const float x1 = (cmd.ClipRect.z - origin.x) * scale.x, y1 = (cmd.ClipRect.w - origin.y) * scale.y;
      if (x1 <= x0 || y1 <= y0 || cmd.ElemCount == 0) continue;
      glScissor(GLint(x0), GLint(float(fb_h) - y1), GLsizei(x1 - x0), GLsizei(y1 - y0));
      glBindTexture(GL_TEXTURE_2D, GLuint(reinterpret_cast<intptr_t>(cmd.GetTexID())));
      glDrawElements(GL_TRIANGLES, GLsizei(cmd.ElemCount), index_type,
                     reinterpret_cast<void*>(uintptr_t(cmd.IdxOffset) * sizeof(ImDrawIdx)));
    }
  }
  glDisable(GL_SCISSOR_TEST);  // so the next frame's clear covers the whole canvas
}

void shutdown() {
  if (g_font) glDeleteTextures(1, &g_font);
  if (g_vbo) glDeleteBuffers(1, &g_vbo);
  if (g_ebo) glDeleteBuffers(1, &g_ebo);
  if (g_vao) glDeleteVertexArrays(1, &g_vao);
  if (g_program) glDeleteProgram(g_program);
  g_font = g_vbo = g_ebo = g_vao = g_program = 0;
  ImGui::GetIO().Fonts->SetTexID(nullptr);
}

}  // namespace platform::gl
