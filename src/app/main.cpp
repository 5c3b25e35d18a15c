// main.cpp: starts the lab, natively (attnlab-desktop) or in the page.
//
//   attnlab-desktop [--lessons DIR] [--goto LESSON:STEP]
//     --lessons DIR      read lessons from DIR instead of the embedded copy
//     --goto LESSON:STEP open that lesson step (1-based), e.g. first-look:2
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "app/lab_app.h"
#include "platform/platform.h"

namespace {
LabApp g_app;  // the one lab value; lives for the whole program
}  // namespace

int main(int argc, char** argv) {
  std::string lesson_dir, go;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--lessons") && i + 1 < argc) {
      lesson_dir = argv[++i];
    } else if (!std::strcmp(argv[i], "--goto") && i + 1 < argc) {
      go = argv[++i];
    } else if (!std::strcmp(argv[i], "--help")) {
      std::printf("usage: attnlab-desktop [--lessons DIR] [--goto LESSON:STEP]\n");
      return 0;
    } else {
      std::fprintf(stderr, "attnlab-desktop: unknown argument '%s' (try --help)\n", argv[i]);
      return 2;
    }
  }
  platform::Desc desc;
  desc.font_path = LAB_UI_FONT;
  desc.cjk_font_path = LAB_CJK_FONT;
  desc.cjk_glyphs_path = LAB_CJK_TEXT;
  desc.mono_font_path = LAB_MONO_FONT;
  const std::string err = platform::init(desc);
  if (!err.empty()) {
    std::fprintf(stderr, "attnlab: %s\n", err.c_str());
    platform::page_event("fatal", attn::json::quote(err));
    return 1;
  }
  ui::apply_theme();
#ifdef LAB_POEM_FONT
  // Natively the Tang poems' glyphs and the later lessons' are at hand: taken at
  // start (the page fetches them with the poems, and after its first frame:
  // app/lab_glyphs.h).
  for (const char* path : {LAB_POEM_FONT, LAB_LESSON_GLYPHS}) {
    std::string bytes;
    if (FILE* f = std::fopen(path, "rb")) {
      char buf[1 << 16];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.append(buf, n);
      std::fclose(f);
    }
    if (!platform::add_glyphs(std::move(bytes))) std::fprintf(stderr, "attnlab: %s is missing or not a font\n", path);
  }
#endif
  g_app.init(lesson_dir);
  if (!go.empty()) {
    const size_t colon = go.find(':');
    const std::string fragment = go.substr(0, colon) + (colon == std::string::npos ? "" : "/" + go.substr(colon + 1));
    g_app.follow_link(fragment);
  }
  platform::set_page_query_handler(
      [](const std::string& name, const std::string& arg, void* app) { return static_cast<LabApp*>(app)->page_query(name, arg); },
      &g_app);
  platform::run(
      [](void* app) {
        static_cast<LabApp*>(app)->frame();
        return true;
      },
      &g_app);
  return 0;
}
