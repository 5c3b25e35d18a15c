// lab_glyphs.cpp: fetching the later lessons' Chinese glyphs (lab_glyphs.h).
#include "app/lab_glyphs.h"

#include <utility>

#include "platform/platform.h"

namespace {
constexpr const char* kFetch = "glyphs:lessons";
}  // namespace

std::string LessonGlyphs::tick(const std::string& lang, int lesson_index, long frames) {
  std::string font;
  switch (state_) {
    case State::idle:
      if (!platform::fetch_needed()) {  // natively main.cpp took them at start
        state_ = State::in;
        return "";
      }
      if (frames < 1 && !needed(lang, lesson_index)) return "";  // after the first frame, unless it needs them
      platform::fetch_start(kFetch, {"texts/lesson-glyphs.otf"});
      state_ = State::loading;
      return "";
    case State::loading: {
      const platform::FetchState st = platform::fetch_state(kFetch, &font);
      if (st == platform::FetchState::loading) return "";
      if (st == platform::FetchState::ready && platform::add_glyphs(std::move(font))) {
        state_ = State::added;
        added_at_ = frames;
        return "";
      }
      state_ = State::failed;
      const std::string why = st == platform::FetchState::ready ? "the file is not a font" : "no answer";
      return lang == "zh" ? "后面几课的汉字字形没能载入（" + why + "），有些字会显示成方框。刷新页面可以再试一次。"
                          : "The Chinese characters of the later lessons could not be loaded (" + why +
                                "), so some show as boxes. Reload the page to try again.";
    }
    case State::added:
      if (frames > added_at_) state_ = State::in;  // drawn from the new atlas from this frame on
      return "";
    case State::in:
    case State::failed:
      return "";
  }
  return "";
}
