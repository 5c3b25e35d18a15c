// local_text.h: text in each language the lab speaks ("en", required, and "zh").
// Shared by the lesson model (lesson.h) and exercises (exercise.h).
#pragma once

#include <map>
#include <string>

namespace attn {

struct LocalText {
  std::map<std::string, std::string> by_lang;
  // The text in `lang`, falling back to English.
  const std::string& get(const std::string& lang) const;
};

}  // namespace attn
