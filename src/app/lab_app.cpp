// lab_app.cpp: the lab's state and every change to it (lab_app.h). Sections:
// 0 the current step and its outputs, 1 loading and restoring, 2 navigation and
// edits, 3 training, 4 saving and links, 5 the Code view (its program: lab_code.cpp).
// The frame is drawn in lab_frame.cpp; the page's questions are answered in
// lab_page.cpp.
#include "app/lab_app.h"

#include <algorithm>
#include <cmath>

#include "app/lab_page.h"
#include "app/lab_saved.h"
#include "base/number_text.h"
#include "base/rng.h"
#include "base/tensor_json.h"
#include "data/text_corpus.h"
#include "course/exercise.h"
#include "course/links.h"
#include "lab/catalog.h"
#include "platform/platform.h"

// ---------------------------------------------------------------- 0 the current step
std::string LabApp::current_key() const {
  const attn::LessonStep* s = current_step();
  return s ? attn::step_key(state_.lesson, s->id) : "";
}

LabView LabApp::view() const {
  LabView v;
  v.lessons = &set_.lessons;
  v.state = &state_;
  v.step = current_step();
  v.lesson = v.step ? &set_.lessons[size_t(lesson_)] : nullptr;
  v.lesson_index = lesson_;
  v.key = current_key();
  v.edited = state_.edits.count(v.key) > 0 || state_.answers.count(v.key) > 0;
  v.inputs = &inputs_;
  v.outputs = &outputs_;
  v.hints = &hints_shown_;
  v.quizzes = &quizzes_;
  v.errors = &errors_;
  v.notices = &notices_;
  v.trainer.experiment = experiment_;
  v.trainer.running = running_;
  v.trainer.speed = speed_;
  v.trainer.snapshots = snapshots_;
  trainer_.fill_view(experiment_key_, &v.trainer);
  v.own_text = own_text_.view(state_.lang);
  v.glyphs_pending = glyphs_.pending(state_.lang, lesson_);
  v.layout = layout_;
  v.embedded = embedded_;
  v.touch_screen = touch_screen_;
  v.code_open = code_.open;
  v.code_lang = code_.lang;
  v.code_copied_at = code_.copied_at;
  v.show_keys = show_keys_;
  v.overlay = overlay_;
  v.compute_ms = compute_ms_;
  v.revision = revision_;
  v.dirty = dirty_;
  return v;
}

void LabApp::recompute() {
  const attn::LessonStep* step = current_step();
  if (!step) return;
  const double t0 = platform::now_ms();
  if (attn::is_experiment_demo(step->demo)) {
    // A new experiment's settings are checked by the demo table first (a bad value
    // in a link or saved state shows as a compute error, like any demo's).
    if (!experiment_) {
      outputs_ = attn::run_demo(step->demo, inputs_);
      if (outputs_.error.empty()) {
        if (trainer_.text_ready(step->demo, inputs_, outputs_))
          experiment_ = trainer_.client().open(current_key(), step->demo, inputs_);
        else
          running_ = false;
      }
    }
    if (experiment_) outputs_ = experiment_->view();
    else running_ = false;
  } else {
    outputs_ = step->demo.empty() ? attn::DemoOutputs{} : attn::run_demo(step->demo, inputs_);
  }
  compute_ms_ = platform::now_ms() - t0;
  compute_total_ms_ += compute_ms_;
  ++revision_;
}

void LabApp::restart_experiment() {
  running_ = false;
  experiment_ = nullptr;
  const attn::LessonStep* step = current_step();
  // A step whose text is still on its way is opened when it comes (recompute).
  attn::DemoOutputs scratch;
  if (step && attn::is_experiment_demo(step->demo) && attn::run_demo(step->demo, inputs_).error.empty() &&
      trainer_.text_ready(step->demo, inputs_, scratch))
    experiment_ = trainer_.client().reset(current_key(), step->demo, inputs_);
  else if (attn::TrainerClient* c = trainer_.client_if_started())
    c->close(current_key());
  recompute();
}

void LabApp::remember_edits() {
  const attn::LessonStep* step = current_step();
  if (!step) return;
  attn::StepEdits e = attn::edits_from_inputs(attn::demo_defaults(*step, state_.lang), inputs_);
  if (e.empty()) state_.edits.erase(current_key());
  else state_.edits[current_key()] = std::move(e);
  dirty_ = true;
}

void LabApp::remember_answers() {
  const attn::LessonStep* step = current_step();
  if (!step) return;
  attn::StepAnswers a = attn::answers_from_step(*step, hints_shown_, quizzes_);
  if (a.empty()) state_.answers.erase(current_key());
  else state_.answers[current_key()] = std::move(a);
  dirty_ = true;
  ++revision_;
}

void LabApp::tell_page_prose() const { platform::page_event("step", attn::json::write(lab_prose_json(view()))); }

void LabApp::enter_step() {
  if (set_.lessons.empty()) return;
  attn::lab_state_fit(&state_, set_.lessons);
  for (size_t i = 0; i < set_.lessons.size(); ++i)
    if (set_.lessons[i].id == state_.lesson) lesson_ = int(i);
  int& furthest = state_.furthest[state_.lesson];
  if (state_.step > furthest) furthest = state_.step;
  step_ = attn::step_in_language(set_.lessons[size_t(lesson_)].steps[size_t(state_.step)], state_.lang);
  has_step_ = true;
  const attn::LessonStep& step = step_;
  auto it = state_.edits.find(current_key());
  inputs_ = attn::inputs_with_edits(attn::demo_defaults(step, state_.lang), it == state_.edits.end() ? nullptr : &it->second);
  auto saved = state_.answers.find(current_key());
  const attn::StepAnswers* answers = saved == state_.answers.end() ? nullptr : &saved->second;
  hints_shown_ = attn::hints_for_step(step, answers);
  quizzes_ = attn::quizzes_for_step(step, answers);
  // A live experiment waits, paused, while the learner is elsewhere.
  attn::TrainerClient* client = trainer_.client_if_started();
  if (experiment_ && running_ && client) client->pause(experiment_key_);
  running_ = false;
  experiment_key_ = current_key();
  experiment_ = client ? client->experiment(experiment_key_) : nullptr;
  recompute();
  platform::set_url_fragment(attn::make_link(state_.lesson, step.id, nullptr));
  tell_page_prose();
  dirty_ = true;
}

void LabApp::record_errors(const std::vector<attn::LessonError>& errors) {
  for (const auto& e : errors) errors_.push_back(e.to_string());
}

// ---------------------------------------------------------------- 1 loading and restoring
void LabApp::init(const std::string& lesson_dir) {
  set_ = lesson_dir.empty() ? attn::load_embedded_lessons() : attn::load_lesson_folder(lesson_dir);
  record_errors(set_.errors);
  const std::string link = platform::url_fragment();  // before enter_step rewrites it
  // The embed view starts from its link alone: a course page's frame must show the
  // step the teacher linked, and must not read or overwrite the learner's own lab.
  embedded_ = platform::embedded_view();
  if (!embedded_) {
    restore_saved_state(&state_, &notices_);
    own_text_.restore();  // a text the learner kept on this device, handed in again
    if (own_text_.has()) {
      attn::data::provide_corpus(attn::data::TextCorpusKind::own, own_text_.text());
      trainer_.client().provide_text("own", own_text_.text());
    }
  }
  enter_step();
  follow_link(link);
}

bool LabApp::load_lesson_text(const std::string& file, const std::string& text) {
  std::vector<attn::LessonError> errors;
  attn::Lesson lesson;
  if (!attn::parse_lesson(file, text, lesson, errors) || !attn::validate_lesson(lesson, attn::lab_demos(), errors)) {
    record_errors(errors);
    return false;
  }
  bool replaced = false;
  for (auto& l : set_.lessons)
    if (l.id == lesson.id) l = lesson, replaced = true;
  if (!replaced) set_.lessons.push_back(std::move(lesson));
  // A changed lesson may have changed its experiments' settings.
  if (attn::TrainerClient* c = trainer_.client_if_started()) c->close_all();
  experiment_ = nullptr;
  running_ = false;
  enter_step();
  return true;
}

void LabApp::follow_link(const std::string& fragment) {
  if (fragment.empty()) return;
  attn::ParsedLink link;
  std::string why;
  if (!attn::parse_link(fragment, set_.lessons, &link, &why)) {
    notices_.push_back("The link was ignored: " + why + ".");
    return;
  }
  if (link.lesson.empty()) return;
  if (!go_to(link.lesson, link.step)) {
    notices_.push_back("The link was ignored: it names a lesson step that does not exist.");
    return;
  }
  if (!link.has_edits) return;
  // Shapes are compared in inputs_with_edits: an Eigen == of two shapes read
  // past the smaller one, and a 1 x 1 matrix equal to element (0, 0) passed.
  std::vector<std::string> ignored;
  inputs_ = attn::inputs_with_edits(attn::demo_defaults(*current_step(), state_.lang), &link.edits, &ignored);
  if (!ignored.empty()) notices_.push_back("Some values in the link do not fit this step and were ignored.");
  if (std::string note = own_text_.instead_of_linked(&inputs_, state_.lang); !note.empty()) notices_.push_back(note);
  remember_edits();
  restart_experiment();  // the link's settings: a fresh experiment
}

// ---------------------------------------------------------------- 2 navigation and edits
bool LabApp::go_to(const std::string& lesson_id, int step) {
  for (const auto& l : set_.lessons) {
    if (l.id != lesson_id) continue;
    if (step < 0 || step >= int(l.steps.size())) return false;
    state_.lesson = lesson_id;
    state_.step = step;
    enter_step();
    return true;
  }
  return false;
}

void LabApp::step_by(int delta) {
  if (set_.lessons.empty() || embedded_) return;
  const int next = state_.step + delta;
  if (next < 0 || next >= int(set_.lessons[size_t(lesson_)].steps.size())) return;
  go_to(state_.lesson, next);
}

void LabApp::lesson_by(int delta) {
  if (embedded_) return;
  const int next = lesson_ + delta;
  if (next >= 0 && next < int(set_.lessons.size())) go_to(set_.lessons[size_t(next)].id, 0);
}

void LabApp::matrix_changed(const std::string& name) {
  remember_edits();
  const auto it = inputs_.mats.find(name);
  attn::TrainerClient* client = trainer_.client_if_started();
  if (experiment_ && it != inputs_.mats.end() &&
      !(attn::run_demo(current_step()->demo, inputs_).error.empty() && client &&
        client->set_view_matrix(experiment_key_, name, it->second))) {
    restart_experiment();
    return;
  }
  recompute();
}

void LabApp::apply_edit(const ui::CellEdit& e) {
  auto it = inputs_.mats.find(e.name);
  if (it == inputs_.mats.end() || e.row < 0 || e.col < 0 || e.row >= it->second.rows() ||
      e.col >= it->second.cols() || !std::isfinite(e.value))
    return;
  it->second(e.row, e.col) = e.value;
  matrix_changed(e.name);
}

void LabApp::set_setting(const std::string& name, const std::string& value) {
  inputs_.settings[name] = value;
  remember_edits();
  // A live experiment keeps training when only the picture changes (which
  // example is shown); other settings start it again.
  attn::TrainerClient* client = trainer_.client_if_started();
  if (experiment_ && client && attn::run_demo(current_step()->demo, inputs_).error.empty() &&
      client->set_view_setting(experiment_key_, name, value)) {
    recompute();
    return;
  }
  restart_experiment();
}

void LabApp::apply_demo_edit(const ui::DemoEdit& e) {
  using K = ui::DemoEdit::Kind;
  switch (e.kind) {
    case K::cell: apply_edit({e.name, e.row, e.col, e.value}); break;
    case K::point:
      apply_edit({e.name, e.row, 0, e.value});
      apply_edit({e.name, e.row, 1, e.value2});
      break;
    case K::setting: set_setting(e.name, e.text); break;
    case K::randomise: {
      auto it = inputs_.mats.find(e.name);
      if (it == inputs_.mats.end()) return;
      // A new seed each press, so pressing again gives new numbers.
      attn::Rng rng(uint64_t(++randomised_) * 7919u + 17u);
      it->second = attn::uniform_matrix(rng, int(it->second.rows()), int(it->second.cols()), 1.0f);
      matrix_changed(e.name);
      break;
    }
    case K::reset: {
      const attn::DemoInputs base = attn::demo_defaults(*current_step(), state_.lang);
      auto from = base.mats.find(e.name);
      if (from == base.mats.end() || !inputs_.mats.count(e.name)) return;
      inputs_.mats[e.name] = from->second;
      matrix_changed(e.name);
      break;
    }
  }
}

void LabApp::reset_step() {
  state_.edits.erase(current_key());
  state_.answers.erase(current_key());
  // Back to the lesson's settings, untrained.
  if (attn::TrainerClient* c = trainer_.client_if_started()) c->close(current_key());
  trainer_.forget_failed_texts();  // a text that failed to load is fetched again
  experiment_ = nullptr;
  running_ = false;
  enter_step();
}

void LabApp::show_hint(int exercise) {
  const attn::LessonStep* step = current_step();
  if (!step || exercise < 0 || exercise >= int(hints_shown_.size())) return;
  int& shown = hints_shown_[size_t(exercise)];
  if (shown >= int(step->exercises[size_t(exercise)].hints.size())) return;
  ++shown;
  remember_answers();
}

void LabApp::quiz_pick(int quiz, int option) {
  const attn::LessonStep* step = current_step();
  if (!step || quiz < 0 || quiz >= int(quizzes_.size())) return;
  ui::QuizState& q = quizzes_[size_t(quiz)];
  if (q.checked || option < 0 || option >= int(step->quizzes[size_t(quiz)].options.size())) return;
  q.picked = option;
  remember_answers();
}

void LabApp::quiz_check(int quiz) {
  if (quiz < 0 || quiz >= int(quizzes_.size()) || quizzes_[size_t(quiz)].picked < 0) return;
  quizzes_[size_t(quiz)].checked = true;
  remember_answers();
  tell_page_prose();  // a checked quiz may reveal more of the step's prose (its `after` text)
}

void LabApp::set_language(const std::string& lang) {
  if (lang != "en" && lang != "zh") return;
  const std::string was = state_.lang;
  state_.lang = lang;
  dirty_ = true;
  ++revision_;
  if (!has_step_ || lang == was) {
    tell_page_prose();
    return;
  }
  // A step whose starting values differ by language (attn::steps_changed_by_language)
  // is entered again with this language's and the learner's edits over them; a
  // model trained on the other language's values starts again, here or when its
  // step is next opened.
  bool here = false;
  attn::TrainerClient* client = trainer_.client_if_started();
  for (const std::string& key : attn::steps_changed_by_language(set_.lessons, state_, was, lang, attn::lab_demos())) {
    if (client) client->close(key);
    here = here || key == current_key();
  }
  if (here) {
    experiment_ = nullptr;
    running_ = false;
    enter_step();
    return;
  }
  // The step's own checks and solutions may still differ by language.
  step_ = attn::step_in_language(set_.lessons[size_t(lesson_)].steps[size_t(state_.step)], lang);
  tell_page_prose();
}

std::string LabApp::type_number(const std::string& name, int row, int col, const std::string& text) {
  float v = 0.0f;
  if (std::string why = check_typed_number(view(), name, row, col, text, &v); !why.empty()) return why;
  apply_edit({name, row, col, v});
  return "";
}

bool LabApp::apply_solution(int exercise) {
  const attn::LessonStep* step = current_step();
  if (!step || exercise < 0 || exercise >= int(step->exercises.size())) return false;
  attn::DemoInputs solved = inputs_;
  std::string why;
  if (!attn::apply_solution(step->exercises[size_t(exercise)], outputs_, solved, &why)) {
    errors_.push_back("This exercise's stored solution could not be applied: " + why);
    return false;
  }
  // A live experiment keeps its training when the solution only changes what is
  // shown (set_setting's rule); other settings train a fresh one.
  bool restart = false;
  attn::TrainerClient* client = trainer_.client_if_started();
  if (experiment_ && attn::run_demo(step->demo, solved).error.empty())
    for (const auto& [name, value] : solved.settings) {
      auto was = inputs_.settings.find(name);
      if ((was == inputs_.settings.end() || was->second != value) &&
          !(client && client->set_view_setting(experiment_key_, name, value)))
        restart = true;
    }
  inputs_ = std::move(solved);
  remember_edits();
  if (restart) restart_experiment();
  else recompute();
  return true;
}

std::string LabApp::page_setting(const std::string& name, const std::string& value) {
  if (std::string why = check_page_setting(view(), name, value); !why.empty()) return why;
  set_setting(name, value);
  return "";
}

void LabApp::set_layout(const std::string& layout, bool touch_screen) {
  if (layout == "wide" || layout == "medium" || layout == "narrow") layout_ = layout;
  touch_screen_ = touch_screen;
}

// ---------------------------------------------------------------- 3 training
void LabApp::train(const std::string& action, const std::string& speed) {
  if (action == "retry") {
    if (!trainer_.retry()) return;
    running_ = false;
    if (attn::TrainerClient* c = trainer_.client_if_started()) experiment_ = c->experiment(experiment_key_);
    notices_.push_back("The training worker was started again; the experiments start from the beginning.");
    recompute();
    return;
  }
  if (!experiment_) return;
  ++revision_;
  attn::TrainerClient& t = trainer_.client();
  if (action == "run") {
    if (!experiment_->done() && trainer_.failed().empty()) {
      t.run(experiment_key_, speed_);
      running_ = true;
    }
  } else if (action == "pause") {
    t.pause(experiment_key_);
    running_ = false;
  } else if (action == "step") {
    // One step in the worker; the page shows it when its snapshot arrives.
    if (!experiment_->done() && trainer_.failed().empty()) t.step(experiment_key_);
    running_ = false;
  } else if (action == "reset") {
    restart_experiment();
  } else if (action == "speed" && (speed == "slow" || speed == "normal" || speed == "fast")) {
    speed_ = speed;
    if (running_) t.run(experiment_key_, speed);
  }
}

void LabApp::set_workers(int workers) {
  if (workers == trainer_.workers()) return;
  trainer_.set_workers(workers);
  ++revision_;
}

void LabApp::own_text(const std::string& text, bool keep) {
  own_text_.submit(text, keep);
  ++revision_;
  if (!own_text_.pending() && own_text_.poll()) own_text_outcome();
}

void LabApp::own_text_outcome() {
  const OwnText::Outcome o = own_text_.take_outcome();
  ++revision_;
  attn::json::Value e = attn::json::Value::object();
  e.set("ok", o.ok);
  e.set("message", state_.lang == "zh" ? o.zh : o.en);
  platform::page_event("ownText", attn::json::write(e));
  notify(state_.lang == "zh" ? o.zh : o.en);
  if (!o.ok) return;
  // The core's copy and the worker's; every model that read the old text starts again.
  attn::data::provide_corpus(attn::data::TextCorpusKind::own, own_text_.text());
  trainer_.client().provide_text("own", own_text_.text());
  trainer_.client().close_where("corpus", "own");
  const attn::LessonStep* step = current_step();
  if (step && step->demo == "train_lm") {
    experiment_ = nullptr;
    set_setting("corpus", "own");  // the learner's text, trained from the start
  }
}

void LabApp::tick(double now_ms, long frames) {
  frames_ = frames;
  if (own_text_.poll()) own_text_outcome();
  if (std::string e = glyphs_.tick(state_.lang, lesson_, frames); !e.empty()) errors_.push_back(e);
  const TrainerSide::Pump p = trainer_.pump(now_ms, frames, experiment_key_);
  for (const std::string& e : p.errors) errors_.push_back(e);
  snapshots_ += p.snapshots;
  if (!p.changed) return;
  if (p.running && *p.running != running_) {
    running_ = *p.running;
    ++revision_;
  }
  if (p.stopped) ++revision_;
  recompute();
}

// ---------------------------------------------------------------- 4 saving and links
bool LabApp::save(double min_interval_ms) {
  const double now = platform::now_ms();
  if (embedded_) dirty_ = false;  // the embed view keeps nothing (README, "Embedding a step")
  if (!dirty_ || now - saved_at_ms_ < min_interval_ms) return !dirty_;
  if (save_state(state_)) dirty_ = false;
  saved_at_ms_ = now;
  return !dirty_;
}

std::string LabApp::current_link() {
  const attn::LessonStep* step = current_step();
  if (!step) return "";
  auto it = state_.edits.find(current_key());
  return attn::make_link(state_.lesson, step->id, it == state_.edits.end() ? nullptr : &it->second);
}

std::string LabApp::share_link() {
  const std::string link = current_link();
  if (link.empty()) return link;
  platform::set_url_fragment(link);
  platform::copy_to_clipboard(link);
  return link;
}

std::string LabApp::embed_snippet() {
  const attn::LessonStep* step = current_step();
  if (!step) return "";
  const attn::Lesson& lesson = set_.lessons[size_t(lesson_)];
  const std::string title = "Attention Lab: " + lesson.title.get(state_.lang) + " / " + step->title.get(state_.lang);
  const std::string snippet = attn::embed_snippet(platform::page_base_url(), current_link(), state_.lang, title);
  platform::copy_to_clipboard(snippet);
  return snippet;
}

std::string LabApp::page_query(const std::string& name, const std::string& arg) {
  return lab_page_answer(name, arg, *this, frame_);
}

// ---------------------------------------------------------------- 5 the Code view
StepCode::Source LabApp::code_source() const {
  const attn::LessonStep* step = current_step();
  return {step ? &set_.lessons[size_t(lesson_)] : nullptr, step, state_.step, current_key(), revision_, &inputs_,
          experiment_};
}

bool LabApp::code_view(bool open, const std::string& language) {
  if (!has_code()) return false;
  if (language == "numpy" || language == "torch") code_.lang = language;
  code_.open = open;
  ++revision_;  // the page's mirror shows the program too
  return true;
}

void LabApp::copy_code(bool weights) {
  const std::string& text = weights ? code_weights() : code();
  if (text.empty()) return;
  platform::copy_to_clipboard(text);
  code_.copied_at = platform::now_ms();
}
