// lab_own_text.h: the learner's own text for the language model (curriculum H),
// pasted or dropped into the page (or dropped on the desktop's window): checked,
// made drawable, kept on this device when the learner asks, and never sent
// anywhere -- the lab hands it to its own core and its training worker only.
//
// A text is checked in this order, each failure with a message the learner can
// act on, in their language, and the text and model before it kept: its length
// (at most data::kMaxOwnTextBytes), UTF-8, not binary, not empty; then, once the
// glyphs it needs are at hand, at least train::kOwnTextMinChars characters, and
// a vocabulary that fits (train::check_own_text).
//
// Glyphs: the page's Chinese font holds only the characters its lessons use.
// A text with Chinese characters beyond them makes the lab fetch the common-
// characters font (GB 2312's first level, texts/common-glyphs.otf; read from
// the build folder natively) and merge in only the characters this text has.
// A character still outside every font is written as U+FFFD, which the model
// reads as its unknown token (drawn □); the message says how many there were.
#pragma once

#include <string>

#include "course/demo_api.h"
#include "train/train_run.h"

struct OwnTextView;  // lab_view.h

class OwnText {
 public:
  // Natively, the common-characters font file the build names; "" in the page,
  // which fetches it.
  static std::string common_font();

  // What the last text handed in came to: "" while nothing was, or while one
  // waits for its glyphs (pending()).
  struct Outcome {
    bool ok = false;
    std::string en, zh;  // the message, in each language
  };

  // `common_font_path`: natively, the common-characters font file; "" in the page.
  explicit OwnText(std::string common_font_path = "") : common_font_path_(std::move(common_font_path)) {}

  // A text as given (any bytes). `keep`: the learner wants it kept on this device.
  void submit(std::string bytes, bool keep);
  // Each frame: finishes a text whose glyphs have arrived. True when there is a
  // new outcome (take it with take_outcome()).
  bool poll();
  bool pending() const { return !pending_.empty(); }
  Outcome take_outcome();
  const Outcome& last_outcome() const { return last_; }
  // As the page's box shows it, the message in `lang`.
  OwnTextView view(const std::string& lang) const;
  // A link's model trained on the sender's own text (corpus "own"), which links
  // never carry: without a text of our own, the built-in text of `lang` instead,
  // and the notice that says so ("" when nothing changed).
  std::string instead_of_linked(attn::DemoInputs* inputs, const std::string& lang) const;

  // The accepted text, as the model reads it (characters outside every font as
  // U+FFFD), its summary, and how many characters were outside.
  bool has() const { return !text_.empty(); }
  const std::string& text() const { return text_; }
  const attn::train::OwnTextSummary& summary() const { return summary_; }
  int unshown() const { return unshown_; }
  // Kept on this device (the browser's storage) across reloads: what the
  // learner asked for (for this text and the next), and whether it is stored.
  bool keep() const { return keep_; }
  bool kept() const { return kept_; }
  void set_kept(bool keep);
  // At start: a text kept earlier, handed in again (its outcome is not news).
  void restore();

 private:
  // The checks that need no glyphs; false with the outcome set.
  bool check_bytes(const std::string& bytes);
  // The glyphs are in: characters still outside every font become U+FFFD, then
  // the model's own checks.
  void finish();
  // Starts the common font's fetch (or read) for the Chinese characters of
  // pending_ the atlas cannot draw; false when there are none, or no font.
  bool need_glyphs();

  std::string common_font_path_;
  std::string pending_;        // a text waiting for glyphs
  bool pending_keep_ = false;
  bool quiet_ = false;         // restoring: no news
  int wait_frames_ = 0;        // frames until the atlas holds the glyphs added
  bool fetching_ = false;
  std::string own_chars_;      // the characters to take from the common font
  std::string common_font_;    // its bytes, once fetched or read (kept for the next text)
  std::string text_;
  attn::train::OwnTextSummary summary_;
  int unshown_ = 0;
  bool keep_ = false, kept_ = false;
  Outcome last_;
  bool news_ = false;
};
