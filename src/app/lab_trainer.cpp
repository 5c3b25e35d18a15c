// lab_trainer.cpp: the running lab's side of the training worker (lab_trainer.h).
#include "app/lab_trainer.h"

#include <utility>

#include "app/lab_view.h"
#include "app/trainer_worker.h"
#include "data/text_corpus.h"

namespace {
constexpr double kPingEveryMs = 1000.0;
constexpr double kSilentLimitMs = 15000.0;   // no answer to pings for this long: stopped
constexpr double kStartLimitMs = 120000.0;   // not loaded after this long: failed to start
constexpr long kStartAfterFrames = 30;       // started in the background this long after the first frame

// What a step's text needs fetched, by name: the corpus's files, and for the
// poems their glyphs too (the page's font subset holds the lessons' characters
// only; platform::add_glyphs merges these in).
std::map<std::string, std::vector<std::string>> text_files(attn::data::TextCorpusKind kind, const std::string& name) {
  std::map<std::string, std::vector<std::string>> files;
  for (const std::string& f : attn::data::corpus_file_names(kind)) files[name].push_back("texts/" + f);
  if (kind == attn::data::TextCorpusKind::tang_poems) files["glyphs:" + name] = {"texts/poem-glyphs.otf"};
  return files;
}
}  // namespace

void TrainerSide::fill_view(const std::string& key, TrainerView* v) const {
  v->started = started();
  v->ready = ready_;
  v->failed = failed_;
  v->workers = workers_;
  v->cores = platform::cores();
  if (client_) {
    v->synced = client_->synced(key);
    v->rejected = long(client_->rejected());
  }
}

void TrainerSide::start_link() {
  link_ = platform::start_trainer(lab_trainer_worker, workers_);
  ready_ = false;
  started_at_ = heard_at_ = pinged_at_ = platform::now_ms();
}

attn::TrainerClient& TrainerSide::client() {
  if (!client_) {
    if (!link_) start_link();
    client_ = std::make_unique<attn::TrainerClient>([this](std::string m) {
      if (link_) link_->post(std::move(m));
    });
  }
  return *client_;
}

void TrainerSide::set_workers(int workers) {
  workers_ = workers < 1 ? 1 : workers > platform::kMaxTrainerWorkers ? platform::kMaxTrainerWorkers : workers;
  if (link_) link_->set_workers(workers_);
}

bool TrainerSide::retry() {
  if (failed_.empty()) return false;
  failed_.clear();
  link_.reset();  // the old worker is stopped first
  start_link();
  if (client_) client_->reopen_all();
  return true;
}

bool TrainerSide::text_ready(const std::string& demo, const attn::DemoInputs& inputs, attn::DemoOutputs& outputs) {
  std::string name;
  attn::data::TextCorpusKind kind;
  if (!platform::fetch_needed() || !attn::experiment_text(demo, inputs, &name) ||
      !attn::data::parse_text_corpus_name(name, &kind))
    return true;
  std::string failed;
  bool ready = true;
  for (const auto& [what, paths] : text_files(kind, name)) {
    const bool have = what.rfind("glyphs:", 0) == 0 ? glyphs_added_.count(what) > 0 : attn::data::corpus_provided(kind);
    if (have) continue;
    ready = false;
    if (auto it = text_failed_.find(what); it != text_failed_.end()) {
      failed = it->second;
    } else {
      platform::fetch_start(what, paths);
      text_waiting_.insert(what);
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
  outputs.panels.insert(outputs.panels.begin(), std::move(note));
  return false;
}

// A text on its way has come (a corpus is handed to this page's core and to the
// worker, before the step opens there; glyphs go to the font atlas) or failed.
// True when one did: the step is built again.
bool TrainerSide::poll_text() {
  bool changed = false;
  for (auto it = text_waiting_.begin(); it != text_waiting_.end();) {
    std::string bytes;
    const platform::FetchState st = platform::fetch_state(*it, &bytes);
    if (st == platform::FetchState::loading) {
      ++it;
      continue;
    }
    const std::string name = *it;
    it = text_waiting_.erase(it);
    changed = true;
    attn::data::TextCorpusKind kind;
    bool ok = st == platform::FetchState::ready;
    if (ok && name.rfind("glyphs:", 0) == 0) {
      ok = platform::add_glyphs(std::move(bytes));
      if (ok) glyphs_added_.insert(name);
      else bytes = "the glyphs are not a font";
    } else if (ok) {
      ok = attn::data::parse_text_corpus_name(name, &kind) && attn::data::provide_corpus(kind, bytes);
      if (ok) client().provide_text(name, bytes);
      else bytes = "the text is larger than the lab accepts";
    }
    if (!ok) text_failed_[name] = st == platform::FetchState::failed || !bytes.empty() ? bytes : "no answer";
  }
  return changed;
}

TrainerSide::Pump TrainerSide::pump(double now, long frames, const std::string& key) {
  Pump p;
  p.changed = poll_text();
  if (!link_) {
    // Loaded a moment after the first frame, so Start finds it ready.
    if (frames >= kStartAfterFrames) client();
    return p;
  }
  if (!failed_.empty()) return p;
  bool shown = false;
  for (std::string& m : link_->receive()) {
    heard_at_ = now;
    if (!client_) continue;
    if (const std::string k = client_->receive(m); !k.empty() && k == key) {
      shown = true;
      ++p.snapshots;
    }
  }
  if (client_)
    for (const std::string& f : client_->take_failures()) p.errors.push_back("Training: " + f + ".");
  if (shown) {
    p.changed = true;
    p.running = client_->running(key);
  }
  // Is it alive? A failure it reports, no answer to pings, or no start at all.
  std::string failed = link_->failure();
  if (failed.empty() && link_->ready()) {
    if (!ready_) heard_at_ = now;  // its silence counts from here
    ready_ = true;
    if (now - pinged_at_ >= kPingEveryMs && client_) {
      client_->ping();
      pinged_at_ = now;
    }
    if (now - heard_at_ > kSilentLimitMs) failed = "the training worker stopped answering";
  } else if (failed.empty() && now - started_at_ > kStartLimitMs) {
    failed = "the training worker did not start";
  }
  if (!failed.empty()) {
    failed_ = failed;
    p.stopped = true;
    p.changed = true;
    p.running = false;
  }
  return p;
}
