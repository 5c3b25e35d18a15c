// lab_glyphs.h: the Chinese glyphs of the lessons after the first. The page's
// first download holds the glyphs the first frame may draw (fonts/cjk.otf: the
// labels, every title, the first lesson, and every character of the later lessons
// but their Chinese ideographs); the later lessons' ideographs are a second subset
// (texts/lesson-glyphs.otf, src/app/CMakeLists.txt). The page fetches it a moment
// after the first frame, or at once when the lab opens on a later lesson in
// Chinese; until it is in the atlas such a step shows a loading line, never boxes.
// Natively main.cpp adds the file at start.
#pragma once

#include <string>

class LessonGlyphs {
 public:
  // Once per frame, before drawing: starts the fetch, takes the font when it
  // comes. Returns a message for the error panel once if it cannot be had.
  std::string tick(const std::string& lang, int lesson_index, long frames);
  // The step at (lang, lesson_index) needs the glyphs and they are not drawn yet.
  bool pending(const std::string& lang, int lesson_index) const {
    return needed(lang, lesson_index) && state_ != State::in && state_ != State::failed;
  }

 private:
  static bool needed(const std::string& lang, int lesson_index) { return lang == "zh" && lesson_index > 0; }
  enum class State { idle, loading, added, in, failed };
  State state_ = State::idle;
  long added_at_ = 0;  // the frame the font was added (the atlas is built again before the next)
};
