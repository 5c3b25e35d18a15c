// fuzz_lab_state: a saved state (input not starting with '#') or a share link
// (starting with '#'). Never a crash; and what loads saves and loads again to the
// same thing, with nothing dropped the second time.
#include "base/json.h"
#include "course/lab_state.h"
#include "course/lesson.h"
#include "course/links.h"
#include "fuzz/fuzz_util.h"

namespace {

// A small lesson set with a layout-1 record, to fit states and resolve links
// against: steps "a" and "b" were steps 2 and 1 in layout 1, and "c" is new; the
// quiz's options 1 and 2 were swapped and its old option 3 is gone.
const std::vector<attn::Lesson>& lessons() {
  static const std::vector<attn::Lesson> set = [] {
    const char* text =
        "lesson: first-look\ntitle: F\nlayout-1-steps: b | a\n"
        "step: a\ntitle: A\ntext:\n  A.\nquiz: q\nquestion: Q?\noption: x\noption: y\nanswer: 1\n"
        "explain: E.\nlayout-1-options: 2 | 1 | -\n"
        "step: b\ntitle: B\ntext:\n  B.\nexercise: e\ngoal: G.\ncheck: weights[0, 0] > 0.5\nhint: H.\n"
        "solution: q = [[1]]\nstep: c\ntitle: C\ntext:\n  C.\nsource: Someone 2017. A title.\n";
    attn::Lesson l;
    std::vector<attn::LessonError> errors;
    fuzz::require(attn::parse_lesson("f.lesson", text, l, errors), "the fuzz target's lesson parses",
                  errors.empty() ? "" : errors[0].to_string());
    return std::vector<attn::Lesson>{l};
  }();
  return set;
}

void state_round_trip(const std::string& text) {
  attn::LabState state;
  std::string why;
  std::vector<std::string> dropped;
  if (!attn::lab_state_from_text(text, &state, &why, &dropped)) {
    fuzz::require(!why.empty(), "a refused state says why");
    return;
  }
  const std::string saved = attn::json::write(attn::lab_state_to_json(state));
  attn::LabState again;
  std::vector<std::string> dropped_again;
  fuzz::require(attn::lab_state_from_text(saved, &again, &why, &dropped_again), "a saved state loads", why + "\n" + saved);
  fuzz::require(dropped_again.empty(), "a saved state loads whole", saved);
  fuzz::require(attn::json::write(attn::lab_state_to_json(again)) == saved, "a saved state saves the same", saved);
  // Fitted to lessons (an old layout moved to the current one), it stays fitted:
  // fitting again, or saving and loading and fitting, changes nothing.
  attn::lab_state_fit(&state, lessons());
  fuzz::require(state.layout == attn::kLessonLayout, "a fitted state has the current layout", saved);
  const std::string fitted = attn::json::write(attn::lab_state_to_json(state));
  attn::LabState refit;
  fuzz::require(attn::lab_state_from_text(fitted, &refit, &why), "a fitted state loads", why + "\n" + fitted);
  attn::lab_state_fit(&refit, lessons());
  fuzz::require(attn::json::write(attn::lab_state_to_json(refit)) == fitted, "fitting is done once", fitted);
}

void link_round_trip(const std::string& fragment) {
  attn::ParsedLink link;
  std::string why;
  if (!attn::parse_link(fragment, &link, &why)) {
    fuzz::require(!why.empty(), "a refused link says why");
    return;
  }
  if (link.lesson.empty()) return;
  // A step named by id is written back by id; a layout-1 number as that number.
  auto target = [](const attn::ParsedLink& l) { return l.step_id.empty() ? std::to_string(l.step + 1) : l.step_id; };
  const std::string made = attn::make_link(link.lesson, target(link), link.has_edits ? &link.edits : nullptr);
  attn::ParsedLink again;
  fuzz::require(attn::parse_link(made, &again, &why), "a link made from a parsed link parses", why + "\n" + made);
  fuzz::require(again.lesson == link.lesson && again.step == link.step && again.step_id == link.step_id,
                "a link keeps its place", made);
  fuzz::require(attn::make_link(again.lesson, target(again), again.has_edits ? &again.edits : nullptr) == made,
                "a link keeps its values", made);
  attn::ParsedLink resolved;
  fuzz::require(attn::parse_link(fragment, lessons(), &resolved, &why), "a link that parses resolves", fragment);
  if (resolved.lesson == "first-look")
    fuzz::require(resolved.step >= -1 && resolved.step < 3, "a resolved link names a step or none", fragment);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::text(data, size));
  if (!text.empty() && text[0] == '#') link_round_trip(text);
  else state_round_trip(text);
  return 0;
}
