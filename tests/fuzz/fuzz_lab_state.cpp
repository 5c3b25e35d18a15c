// fuzz_lab_state: a saved state (input not starting with '#') or a share link
// (starting with '#'). Never a crash; and what loads saves and loads again to the
// same thing, with nothing dropped the second time.
#include "base/json.h"
#include "fuzz/fuzz_util.h"
#include "lab/lab_state.h"

namespace {

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
}

void link_round_trip(const std::string& fragment) {
  attn::ParsedLink link;
  std::string why;
  if (!attn::parse_link(fragment, &link, &why)) {
    fuzz::require(!why.empty(), "a refused link says why");
    return;
  }
  if (link.lesson.empty()) return;
  const std::string made = attn::make_link(link.lesson, link.step, link.has_edits ? &link.edits : nullptr);
  attn::ParsedLink again;
  fuzz::require(attn::parse_link(made, &again, &why), "a link made from a parsed link parses", why + "\n" + made);
  fuzz::require(again.lesson == link.lesson && again.step == link.step, "a link keeps its place", made);
  fuzz::require(attn::make_link(again.lesson, again.step, again.has_edits ? &again.edits : nullptr) == made,
                "a link keeps its values", made);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::text(data, size));
  if (!text.empty() && text[0] == '#') link_round_trip(text);
  else state_round_trip(text);
  return 0;
}
