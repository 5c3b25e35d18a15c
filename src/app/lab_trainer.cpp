// lab_trainer.cpp: the running lab's side of the training worker
// (lab/trainer.h): starting it, applying what it sends every frame, watching
// that it lives, and a retry after it failed. The worker's own side (what the
// native thread and the worker module run) is trainer_worker.cpp.
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "app/lab_app_internal.h"
#include "app/trainer_worker.h"
#include "data/text_corpus.h"

namespace {
constexpr double kPingEveryMs = 1000.0;
constexpr double kSilentLimitMs = 15000.0;   // no answer to pings for this long: stopped
constexpr double kStartLimitMs = 120000.0;   // not loaded after this long: failed to start
constexpr long kStartAfterFrames = 30;       // started in the background this long after the first frame

void start_link(LabApp& app) {
  app.trainer_link = platform::start_trainer(lab_trainer_worker);
  app.trainer_ready = false;
  app.trainer_started_at = app.trainer_heard_at = app.trainer_pinged_at = platform::now_ms();
}
}  // namespace

attn::TrainerClient& lab_trainer(LabApp& app) {
  if (!app.trainer) {
    if (!app.trainer_link) start_link(app);
    app.trainer = std::make_unique<attn::TrainerClient>([&app](std::string m) {
      if (app.trainer_link) app.trainer_link->post(std::move(m));
    });
  }
  return *app.trainer;
}

void lab_trainer_retry(LabApp& app) {
  if (app.trainer_failed.empty()) return;
  app.trainer_failed.clear();
  app.trainer_link.reset();  // the old worker is stopped first
  start_link(app);
  app.running = false;
  if (app.trainer) {
    app.trainer->reopen_all();
    app.experiment = app.trainer->experiment(app.experiment_key);
  }
  app.notices.push_back("The training worker was started again; the experiments start from the beginning.");
  lab_recompute(app);
}

namespace {
// What a step's text needs fetched, by name: the corpus's files, and for the
// poems their glyphs too (the page's font subset holds the lessons' characters
// only; platform::add_glyphs merges these in).
std::map<std::string, std::vector<std::string>> text_files(attn::data::TextCorpusKind kind, const std::string& name) {
  std::map<std::string, std::vector<std::string>> files;
  for (const std::string& f : attn::data::corpus_file_names(kind)) files[name].push_back("texts/" + f);
  if (kind == attn::data::TextCorpusKind::tang_poems) files["glyphs:" + name] = {"texts/poem-glyphs.otf"};
  return files;
}
bool fetched(const LabApp& app, const std::string& name, attn::data::TextCorpusKind kind) {
  return name.rfind("glyphs:", 0) == 0 ? app.glyphs_added.count(name) > 0 : attn::data::corpus_provided(kind);
}
}  // namespace

bool lab_text_ready(LabApp& app, const attn::LessonStep& step) {
  std::string name;
  attn::data::TextCorpusKind kind;
  if (!platform::fetch_needed() || !attn::experiment_text(step.demo, app.inputs, &name) ||
      !attn::data::parse_text_corpus_name(name, &kind))
    return true;
  std::string failed;
  bool ready = true;
  for (const auto& [what, paths] : text_files(kind, name)) {
    if (fetched(app, what, kind)) continue;
    ready = false;
    if (auto it = app.text_failed.find(what); it != app.text_failed.end()) {
      failed = it->second;
    } else {
      platform::fetch_start(what, paths);
      app.text_waiting.insert(what);
    }
  }
  if (ready) return true;
  attn::LocalText t;
  if (!failed.empty()) {
    t.by_lang["en"] = "The text could not be loaded: " + failed + ". Press Reset step to try again.";
    t.by_lang["zh"] = "没能载入文本：" + failed + "。按“重置本步”再试一次。";
  } else {
    t.by_lang["en"] = "Loading the text this step trains on...";
    t.by_lang["zh"] = "正在载入这一步训练用的文本……";
  }
  attn::Panel note;
  note.kind = attn::Panel::Kind::note;
  note.id = "text-loading";
  note.title.by_lang = {{"en", "The text"}, {"zh", "文本"}};
  note.text = std::move(t);
  app.outputs.panels.insert(app.outputs.panels.begin(), std::move(note));
  app.running = false;
  return false;
}

namespace {
// A text on its way has come (a corpus is handed to this page's core and to the
// worker, before the step opens there; glyphs go to the font atlas) or failed:
// the step is built again.
void poll_text(LabApp& app) {
  bool changed = false;
  for (auto it = app.text_waiting.begin(); it != app.text_waiting.end();) {
    std::string bytes;
    const platform::FetchState st = platform::fetch_state(*it, &bytes);
    if (st == platform::FetchState::loading) {
      ++it;
      continue;
    }
    const std::string name = *it;
    it = app.text_waiting.erase(it);
    changed = true;
    attn::data::TextCorpusKind kind;
    bool ok = st == platform::FetchState::ready;
    if (ok && name.rfind("glyphs:", 0) == 0) {
      ok = platform::add_glyphs(std::move(bytes));
      if (ok) app.glyphs_added.insert(name);
      else bytes = "the glyphs are not a font";
    } else if (ok) {
      ok = attn::data::parse_text_corpus_name(name, &kind) && attn::data::provide_corpus(kind, bytes);
      if (ok) lab_trainer(app).provide_text(name, bytes);
      else bytes = "the text is larger than the lab accepts";
    }
    if (!ok) app.text_failed[name] = st == platform::FetchState::failed || !bytes.empty() ? bytes : "no answer";
  }
  if (changed) lab_recompute(app);
}
}  // namespace

void lab_trainer_pump(LabApp& app, double now) {
  poll_text(app);
  if (!app.trainer_link) {
    // Loaded a moment after the first frame, so Start finds it ready.
    if (app.frames >= kStartAfterFrames) lab_trainer(app);
    return;
  }
  if (!app.trainer_failed.empty()) return;
  bool changed = false;
  for (std::string& m : app.trainer_link->receive()) {
    app.trainer_heard_at = now;
    if (!app.trainer) continue;
    if (const std::string key = app.trainer->receive(m); !key.empty() && key == app.experiment_key) {
      changed = true;
      ++app.trainer_snapshots;
    }
  }
  if (app.trainer)
    for (const std::string& f : app.trainer->take_failures()) app.errors.push_back("Training: " + f + ".");
  if (changed) {
    const bool was = app.running;
    app.running = app.trainer->running(app.experiment_key);
    if (was != app.running) ++app.revision;
    lab_recompute(app);
  }
  // Is it alive? A failure it reports, no answer to pings, or no start at all.
  std::string failed = app.trainer_link->failure();
  if (failed.empty() && app.trainer_link->ready()) {
    if (!app.trainer_ready) app.trainer_heard_at = now;  // its silence counts from here
    app.trainer_ready = true;
    if (now - app.trainer_pinged_at >= kPingEveryMs && app.trainer) {
      app.trainer->ping();
      app.trainer_pinged_at = now;
    }
    if (now - app.trainer_heard_at > kSilentLimitMs) failed = "the training worker stopped answering";
  } else if (failed.empty() && now - app.trainer_started_at > kStartLimitMs) {
    failed = "the training worker did not start";
  }
  if (!failed.empty()) {
    app.trainer_failed = failed;
    app.running = false;
    ++app.revision;
    lab_recompute(app);
  }
}
