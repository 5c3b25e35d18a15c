// main.cpp: starts the lab, natively (attnlab-desktop) or in the page.
//
//   attnlab-desktop [--lessons DIR]   read lessons from DIR instead of the
//                                     embedded copy (for lesson authors)
#include <cstdio>
#include <cstring>
#include <string>

#include "app/lab_app.h"
#include "app/web_hook.h"
#include "platform/platform.h"

namespace {
LabApp g_app;  // the one lab value; lives for the whole program

bool frame(void* user) {
  const bool keep = lab_frame(user);
  web_hook_after_frame(g_app);
  return keep;
}
}  // namespace

int main(int argc, char** argv) {
  std::string lesson_dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--lessons") && i + 1 < argc) {
      lesson_dir = argv[++i];
    } else if (!std::strcmp(argv[i], "--help")) {
      std::printf("usage: attnlab-desktop [--lessons DIR]\n");
      return 0;
    } else {
      std::fprintf(stderr, "attnlab-desktop: unknown argument '%s' (try --help)\n", argv[i]);
      return 2;
    }
  }
  platform::Desc desc;
  desc.font_path = LAB_UI_FONT;
  const std::string err = platform::init(desc);
  if (!err.empty()) {
    std::fprintf(stderr, "attnlab: %s\n", err.c_str());
    web_hook_fatal(err);
    return 1;
  }
  ui::apply_theme();
  lab_init(g_app, lesson_dir);
  web_hook_install(g_app);
  platform::run(frame, &g_app);
  return 0;
}
