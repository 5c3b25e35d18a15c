// fetch.cpp: files a lesson loads only when it opens (platform.h: fetch_*).
#include "platform/platform.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>

#include <cstdlib>

// Module.labFetch[name] = {state: 1 loading, 2 ready, 3 failed, bytes, why}.
// What the server sends is hostile: a response that is not 200, or that is
// larger than the lab accepts (16 MiB in all), fails with the reason.
EM_JS(void, lab_fetch_start, (const char* name_p, const char* paths_p), {
  const name = UTF8ToString(name_p), paths = UTF8ToString(paths_p).split("\n");
  const all = Module.labFetch = Module.labFetch || {};
  if (all[name] && all[name].state !== 3) return;  // a failed fetch may start again
  const entry = all[name] = { state: 1 };
  const limit = 16 * 1024 * 1024;
  Promise.all(paths.map((p) => fetch(p).then((r) => {
    if (!r.ok) throw new Error(p + ": the server answered " + r.status);
    return r.arrayBuffer();
  }))).then((parts) => {
    let n = 0;
    for (const b of parts) n += b.byteLength + 2;
    if (n > limit) throw new Error("the files are larger than the lab accepts (" + n + " bytes)");
    const out = new Uint8Array(Math.max(0, n - 2));
    let at = 0;
    parts.forEach((b, i) => {
      if (i > 0) { out[at++] = 10; out[at++] = 10; }
      out.set(new Uint8Array(b), at);
      at += b.byteLength;
    });
    entry.bytes = out;
    entry.state = 2;
  }).catch((e) => {
    entry.why = String(e && e.message ? e.message : e).slice(0, 300);
    entry.state = 3;
  });
});
EM_JS(int, lab_fetch_state, (const char* name_p), {
  const e = Module.labFetch && Module.labFetch[UTF8ToString(name_p)];
  return e ? e.state : 0;
});
EM_JS(int, lab_fetch_size, (const char* name_p), {
  const e = Module.labFetch && Module.labFetch[UTF8ToString(name_p)];
  return e && e.bytes ? e.bytes.length : 0;
});
// Copies the bytes out and drops the page's copy (the core keeps its own).
EM_JS(void, lab_fetch_take, (const char* name_p, char* out), {
  const e = Module.labFetch[UTF8ToString(name_p)];
  HEAPU8.set(e.bytes, out);
  e.bytes = null;
});
EM_JS(char*, lab_fetch_why, (const char* name_p), {
  const e = Module.labFetch && Module.labFetch[UTF8ToString(name_p)];
  const v = e && e.why ? e.why : "";
  const n = lengthBytesUTF8(v) + 1, p = _malloc(n);
  stringToUTF8(v, p, n);
  return p;
});

namespace platform {

bool fetch_needed() { return true; }

void fetch_start(const std::string& name, const std::vector<std::string>& paths) {
  std::string joined;
  for (const std::string& p : paths) joined += (joined.empty() ? "" : "\n") + p;
  lab_fetch_start(name.c_str(), joined.c_str());
}

FetchState fetch_state(const std::string& name, std::string* out) {
  switch (lab_fetch_state(name.c_str())) {
    case 1: return FetchState::loading;
    case 2: {
      out->assign(size_t(lab_fetch_size(name.c_str())), '\0');
      if (!out->empty()) lab_fetch_take(name.c_str(), out->data());
      return FetchState::ready;
    }
    case 3: {
      char* why = lab_fetch_why(name.c_str());
      *out = why;
      std::free(why);
      return FetchState::failed;
    }
    default: return FetchState::none;
  }
}

}  // namespace platform

#else

namespace platform {

bool fetch_needed() { return false; }
void fetch_start(const std::string&, const std::vector<std::string>&) {}
FetchState fetch_state(const std::string&, std::string*) { return FetchState::none; }

}  // namespace platform

#endif
