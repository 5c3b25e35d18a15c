// platform.h: the only interface to SDL2, OpenGL/WebGL2 and Emscripten.
// Everything above this line (app, ui) sees an ImGui context and a frame callback.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

struct Desc {
  const char* title = "Attention Lab";
  int width = 1280;            // native window size in screen units (ignored on the web,
  int height = 800;            // where the canvas follows the page's CSS size)
  const char* font_path = "";  // TTF to load at the screen's pixel density ("" = ImGui default)
  float font_size = 16.0f;     // in screen units (CSS pixels on the web)
  const char* cjk_font_path = "";  // merged in for Chinese text ("" = none)
  const char* cjk_glyphs_path = "";  // UTF-8 text file: the characters to take from that font
  // Monospace TTF (ASCII) for code. The font atlas then holds ImGui::GetIO().Fonts->Fonts[0],
  // the UI font (Chinese merged in), and Fonts[1], this one ("" = no second font).
  const char* mono_font_path = "";
};

// Opens the window and GL context and sets up Dear ImGui with its SDL2 and OpenGL3
// backends. Returns an error message, or "" on success.
std::string init(const Desc& desc);

// Calls frame(user) once per displayed frame, between ImGui::NewFrame() and the
// render, until it returns false (native) or for ever (web). Returns after
// shutdown on native; on the web it hands control to the browser and never returns.
using FrameFn = bool (*)(void* user);
void run(FrameFn frame, void* user);

// More glyphs for Chinese text, from a font file's bytes (OpenType/TrueType):
// every character of the CJK blocks the font has (or, when `only` is given,
// only the characters of that UTF-8 text) is merged into the atlas, which is
// built again before the next frame; glyphs already there are kept. (The Tang
// poems' characters, fetched with the poems; the common characters a learner's
// own text needs.) False for bytes that are not a font.
bool add_glyphs(std::string font_bytes, std::string only = "");
// Whether the atlas can draw code point `c` now (the UI font, the Chinese
// subset and the glyphs added so far; nothing above U+FFFF).
bool can_draw(uint32_t c);

// Keys the lab binds directly. Presses are counted from the platform's events, so
// a tap shorter than one frame is never lost (ImGui 1.86 can miss those; for the
// keys ImGui itself reads, a release within the frame of its press is held back
// to the next frame so that ImGui sees the tap too).
// The arrow and page keys are the lab's only while no control has the keyboard
// (ImGui's navigation cursor is hidden and nothing is dragged or typed in); then
// ImGui does not see them. Otherwise they move ImGui's navigation and the lab
// counts nothing. F1 and Escape are always counted (Escape also reaches ImGui,
// where it lets go of the focused control).
enum class Key { left, right, page_up, page_down, f1, escape, count };
// Times `key` went down since the previous frame (valid inside the frame callback).
int key_presses(Key key);

// True while the pointer ImGui follows is a finger: SDL2 turns touches into mouse
// events, and this tells them apart (a real mouse moving makes it false again).
bool pointer_is_touch();

// Device pixels per screen unit (window.devicePixelRatio on the web).
float pixel_ratio();

// Persistent storage of small text values: the page's localStorage on the web, files
// in $XDG_CONFIG_HOME/attnlab (or ~/.config/attnlab) natively. Keys are plain names.
bool storage_read(const std::string& key, std::string* out);
bool storage_write(const std::string& key, const std::string& value);

// The page's URL fragment without '#', and setting it without reloading (web only;
// natively they are "" and a no-op).
std::string url_fragment();
void set_url_fragment(const std::string& fragment);
// Puts text on the clipboard (the share link).
void copy_to_clipboard(const std::string& text);
// The embed view (site/embed.html, a page of its own for other sites' frames): one
// step, no lesson list, nothing saved. False natively and in the full page.
bool embedded_view();
// Where the page lives (origin and folder, ending in '/'), for a link or an embed
// snippet that names the site; "" natively.
std::string page_base_url();

// The page's window.attnlab hook asks the app questions by name with one text
// argument and gets JSON text back (web only; see web/lab.js).
using PageQueryFn = std::string (*)(const std::string& name, const std::string& arg, void* user);
void set_page_query_handler(PageQueryFn fn, void* user);
// Tells the page's JavaScript something: calls Module.labEvent(name, data) (web only).
void page_event(const char* name, const std::string& json_data);

// True in the page, where the step's text is also shown as DOM text beside the canvas.
bool running_in_browser();

// Milliseconds since start, monotonic, sub-millisecond resolution.
double now_ms();

// Frames actually drawn since start: a frame that would look exactly like the last
// one drawn is skipped (the screen keeps showing it), so at rest this stays nearly
// still while the frame callback keeps running.
long frames_drawn();

// Files a lesson loads only when it opens (a corpus): in the page, fetched from
// the site (paths relative to the page) and joined with a blank line between
// them; natively there is nothing to fetch (the core reads the lab's cache
// folder), so fetch_needed() is false and nothing else is called.
enum class FetchState { none, loading, ready, failed };
bool fetch_needed();
// Starts fetching `paths` as one text named `name` (nothing if it has started).
void fetch_start(const std::string& name, const std::vector<std::string>& paths);
// Where it is; once ready, *out gets the bytes (and the page forgets them: ask
// once), once failed, why.
FetchState fetch_state(const std::string& name, std::string* out);

// The training worker (lab/trainer.h): a plain Web Worker running its own
// WebAssembly module of the headless layers in the page (web/trainer-worker.js;
// no shared memory, no cross-origin isolation), a thread natively. Messages are
// the protocol's bytes, both ways. The platform moves them; the app says what
// the worker does with them.
//
// More workers: the training worker stays the one that holds the experiments;
// the others are its helpers (experiments/shares.h), each computing shares of
// the language models' steps. In the page each is a plain Web Worker of the same
// module, joined to the training worker by a MessageChannel the page hands them
// both; natively each is a thread. The losses have the same bits for any count.
struct TrainerWorkerFns {
  std::function<void(std::string_view message)> receive;
  // Works a slice; returns how long to wait (< 0: until a message, 0: none).
  std::function<double(double now_ms)> tick;
  std::function<std::vector<std::string>()> take_outbox;
  // The training worker's helpers: how many it has now; its jobs for them, as
  // (helper, bytes); a helper's result.
  std::function<void(int helpers)> set_helpers;
  std::function<std::vector<std::pair<int, std::string>>()> take_jobs;
  // The transport's way to send a job the moment it is made (so that a helper
  // works while the training worker computes its own share); without it, jobs
  // wait for take_jobs after the slice.
  std::function<void(std::function<void(int helper, std::string job)> send)> set_job_sender;
  std::function<void(std::string_view result)> receive_result;
  // In a helper: a job, answered with its result.
  std::function<std::string(std::string_view job)> compute_job;
};
// Workers the learner can pick: 1 (the training worker alone) to this many.
constexpr int kMaxTrainerWorkers = 8;
class TrainerLink {
 public:
  virtual ~TrainerLink() = default;
  // To the worker (queued until it has started).
  virtual void post(std::string message) = 0;
  // What the worker sent since the last call, oldest first.
  virtual std::vector<std::string> receive() = 0;
  // "" while it starts or works; why, once it failed to start or stopped.
  virtual std::string failure() const = 0;
  // False until the worker has loaded and can answer.
  virtual bool ready() const = 0;
  // How many workers train (1 .. kMaxTrainerWorkers): the training worker and
  // its helpers. A change starts or stops helpers; the training goes on.
  virtual void set_workers(int workers) = 0;
  virtual int workers() const = 0;
};
// The cores the machine reports (in the page, navigator.hardwareConcurrency), and
// the workers the lab starts with: one fewer than the cores (the page draws on
// one), at least 1 and at most kMaxTrainerWorkers.
int cores();
int suggested_workers();
// Starts the worker: natively a thread that calls make_worker() and then serves
// it, with workers - 1 helper threads; in the page Web Workers loading
// trainer-worker.js (make_worker unused).
std::unique_ptr<TrainerLink> start_trainer(std::function<TrainerWorkerFns()> make_worker, int workers);
// The worker module's side in the page: exports trainer_receive and
// trainer_tick to trainer-worker.js and posts the outbox back (web only).
void serve_trainer(TrainerWorkerFns fns);

}  // namespace platform
