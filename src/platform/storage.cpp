// storage.cpp: small persistent values, the URL fragment and the clipboard.
#include <SDL.h>

#include "platform/platform.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

#include <cstdlib>

// localStorage can throw (private browsing, quota): every call is guarded and
// reports failure instead.
EM_JS(char*, lab_storage_get, (const char* key), {
  try {
    const v = window.localStorage.getItem("attnlab." + UTF8ToString(key));
    if (v === null) return 0;
    const n = lengthBytesUTF8(v) + 1, p = _malloc(n);
    stringToUTF8(v, p, n);
    return p;
  } catch (e) { return 0; }
});
EM_JS(int, lab_storage_set, (const char* key, const char* value), {
  try { window.localStorage.setItem("attnlab." + UTF8ToString(key), UTF8ToString(value)); return 1; }
  catch (e) { return 0; }
});
// The fragment is hostile: its length is cut first (a link longer than the lab
// accepts still reads as too long), and text that does not decode (a stray '%')
// is passed on as it is, for the link parser to refuse with a notice.
EM_JS(char*, lab_get_fragment, (), {
  let v = (window.location.hash || "").replace(/^#/, "").slice(0, 16384);
  try { v = decodeURIComponent(v); } catch (e) {}
  const n = lengthBytesUTF8(v) + 1, p = _malloc(n);
  stringToUTF8(v, p, n);
  return p;
});
EM_JS(void, lab_set_fragment, (const char* f), {
  const h = "#" + UTF8ToString(f);
  if (window.location.hash !== h) history.replaceState(null, "", h);
});
// The page says which view it is on its root element (cmake/embed_page.cmake).
EM_JS(int, lab_embedded_view, (), { return document.documentElement.dataset.view === "embed" ? 1 : 0; });
EM_JS(char*, lab_page_base, (), {
  const v = (window.location.origin + window.location.pathname.replace(/[^/]*$/, "")).slice(0, 4096);
  const n = lengthBytesUTF8(v) + 1, p = _malloc(n);
  stringToUTF8(v, p, n);
  return p;
});
EM_JS(void, lab_copy_text, (const char* t), {
  const text = UTF8ToString(t);
  try { navigator.clipboard.writeText(text).catch(() => {}); } catch (e) {}
});

namespace platform {

bool storage_read(const std::string& key, std::string* out) {
  char* v = lab_storage_get(key.c_str());
  if (!v) return false;
  *out = v;
  std::free(v);
  return true;
}
bool storage_write(const std::string& key, const std::string& value) {
  return lab_storage_set(key.c_str(), value.c_str()) == 1;
}
std::string url_fragment() {
  char* v = lab_get_fragment();
  std::string s = v;
  std::free(v);
  return s;
}
void set_url_fragment(const std::string& fragment) { lab_set_fragment(fragment.c_str()); }
void copy_to_clipboard(const std::string& text) { lab_copy_text(text.c_str()); }
bool embedded_view() { return lab_embedded_view() == 1; }
std::string page_base_url() {
  char* v = lab_page_base();
  std::string s = v;
  std::free(v);
  return s;
}

}  // namespace platform

#else
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace platform {
namespace {
std::string config_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::string base = xdg && *xdg ? xdg : std::string(home ? home : ".") + "/.config";
  mkdir(base.c_str(), 0700);
  const std::string dir = base + "/attnlab";
  mkdir(dir.c_str(), 0700);
  return dir;
}
}  // namespace

bool storage_read(const std::string& key, std::string* out) {
  std::ifstream f(config_dir() + "/" + key + ".json", std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}
bool storage_write(const std::string& key, const std::string& value) {
  // Write a temporary file and rename it, so a crash never leaves half a file.
  const std::string path = config_dir() + "/" + key + ".json";
  {
    std::ofstream f(path + ".tmp", std::ios::binary | std::ios::trunc);
    if (!f || !(f << value)) return false;
  }
  return std::rename((path + ".tmp").c_str(), path.c_str()) == 0;
}
std::string url_fragment() { return ""; }
void set_url_fragment(const std::string&) {}
void copy_to_clipboard(const std::string& text) { SDL_SetClipboardText(text.c_str()); }
bool embedded_view() { return false; }
std::string page_base_url() { return ""; }

}  // namespace platform
#endif
