// links.h: the URL fragment of a place in the course, with or without the
// learner's edits there (a share link), and the snippet that embeds one step in
// another page.
#pragma once

#include <string>
#include <vector>

#include "course/lab_state.h"
#include "course/lesson.h"

namespace attn {

// The URL fragment for a place, and optionally the learner's edits there:
//   "first-look/three-tokens"                      (the step's id)
//   "first-look/three-tokens/v1.<base64url JSON>"  (with edits: a share link)
// Links made before layout 2 name the step by number ("first-look/2", counted
// from 1, in layout 1); they are still read (parse_link with the lessons).
std::string make_link(const std::string& lesson_id, const std::string& step_id, const StepEdits* edits);

// What a teacher pastes into a course page to show one step there: an <iframe> of
// the embed view (embed.html beside the lab, at `base_url`, which ends in '/'),
// in `lang`, at `link` (make_link's fragment). The title names the step for screen
// readers; every attribute value is HTML-escaped.
std::string embed_snippet(const std::string& base_url, const std::string& link, const std::string& lang,
                          const std::string& title);

struct ParsedLink {
  std::string lesson;   // empty when the fragment names nothing
  std::string step_id;  // the step's id, when the link names one
  int step = 0;         // 0-based: the number a layout-1 link gave (0 with a step id);
                        // with the lessons, the step's index now (-1: no such step)
  bool has_edits = false;
  StepEdits edits;
};
constexpr std::size_t kMaxLinkBytes = 4096;
// Parses a fragment (with or without the leading '#'). Returns false with *why for
// anything malformed, oversized or of an unknown version.
bool parse_link(const std::string& fragment, ParsedLink* out, std::string* why);
// The same, and then `step` is resolved against the lessons: the index of the
// step the link names now, by its id or, for a numbered link, through the lesson's
// layout-1 record; -1 when the lesson has no such step. An unknown lesson is left
// to the caller.
bool parse_link(const std::string& fragment, const std::vector<Lesson>& lessons, ParsedLink* out,
                std::string* why);

}  // namespace attn
