// lab_saved.cpp: the learner's state in storage (lab_saved.h).
#include "app/lab_saved.h"

#include "platform/platform.h"

void restore_saved_state(attn::LabState* state, std::vector<std::string>* notices) {
  std::string text;
  if (!platform::storage_read("state", &text)) return;
  std::string why;
  std::vector<std::string> dropped;
  const bool loaded = attn::lab_state_from_text(text, state, &why, &dropped);
  if (loaded && dropped.empty()) return;
  // Keep the original text rather than overwrite the learner's work with less. An
  // earlier copy is never overwritten: the first failure's text is the one to keep.
  const std::string key = attn::unreadable_copy_key([](const std::string& k) {
    std::string existing;
    return platform::storage_read(k, &existing);
  });
  const bool kept = !key.empty() && platform::storage_write(key, text);
  const std::string copy = kept ? "a copy was kept as '" + key + "'" : "no copy could be kept (earlier copies are full)";
  if (!loaded) {
    notices->push_back("Saved progress could not be read (" + why + "); " + copy + " and the lab started fresh.");
    return;
  }
  for (const std::string& d : dropped)
    notices->push_back("Part of the saved progress could not be read and was dropped: " + d + ".");
  notices->push_back("Everything else was restored; " + copy + ".");
}

bool save_state(const attn::LabState& state) {
  return platform::storage_write("state", attn::json::write(attn::lab_state_to_json(state)));
}
