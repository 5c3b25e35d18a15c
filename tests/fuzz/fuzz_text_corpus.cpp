// fuzz_text_corpus: the language models' corpus parsers (data/text_corpus.h) on
// any bytes. Each input goes through the three parsers (the poems, prose
// paragraphs, the learner's own text). A refusal says why; what a parser
// accepts keeps its promises: non-empty units of well-formed UTF-8 with no
// escape or control characters (a poem's or an own text's lines: '\n' between
// trimmed, non-empty lines; a paragraph: one line, single spaces, none at
// either end). The accepted text then goes through the vocabulary, both kinds of
// split (every tenth unit, and a tail of the characters) and both kinds of
// window, whose sizes and ids are checked. The first byte sets the table's size
// (0: every character).
#include <algorithm>
#include <string>
#include <vector>

#include "data/text_corpus.h"
#include "fuzz/fuzz_util.h"

namespace {
using attn::data::TextCorpusKind;

void check_units(TextCorpusKind kind, const attn::data::ParsedText& text, const std::string& input) {
  fuzz::require(!text.units.empty(), "an accepted text has a unit", input);
  for (const std::string& u : text.units) {
    fuzz::require(!u.empty(), "units are not empty", input);
    fuzz::require(attn::data::valid_utf8(u), "units are UTF-8", u);
    for (char ch : u) {
      const unsigned c = static_cast<unsigned char>(ch);
      const bool newline_ok = kind != TextCorpusKind::founding_documents && c == '\n';
      fuzz::require(newline_ok || (c >= 0x20 && c != 0x7f), "no escape or control characters", u);
    }
    fuzz::require(u.front() != '\n' && u.back() != '\n' && u.find("\n\n") == std::string::npos,
                  "no blank lines inside a unit", u);
    if (kind == TextCorpusKind::founding_documents)
      fuzz::require(u.front() != ' ' && u.back() != ' ' && u.find("  ") == std::string::npos,
                    "paragraphs have single spaces and none at either end", u);
  }
}

void check_corpus(const attn::data::ParsedText& text, int max_chars, float tail, const std::string& input) {
  attn::data::CharCorpusDesc desc;
  desc.max_chars = max_chars;
  desc.heldout_tail = tail;
  const attn::data::CharCorpus c = attn::data::make_char_corpus(text, desc);
  const int V = c.vocab.size();
  fuzz::require(c.vocab.unknown == V - 1, "<unk> is the last id", input);
  fuzz::require(max_chars == 0 || V <= max_chars + 1, "at most max_chars characters and <unk>", input);
  fuzz::require(c.train_units + c.heldout_units == int(text.units.size()), "every unit in one split", input);
  for (const std::vector<int>* ids : {&c.train, &c.heldout})
    for (int id : *ids) fuzz::require(id >= 0 && id < V, "ids in range", input);
  if (tail > 0) {
    std::string all;
    for (const std::string& u : text.units) all += (all.empty() ? "" : "\n\n") + u;
    const size_t n = attn::data::utf8_chars(all).size();
    fuzz::require(c.train.size() + c.heldout.size() == n, "the tail split keeps every character once", input);
    fuzz::require(n < 2 || (!c.train.empty() && !c.heldout.empty()), "both sides of a tail split have a character",
                  input);
  } else if (c.train_unknown == 0) {
    std::string train;
    for (size_t k = 0; k < text.units.size(); ++k) {
      if (k % 10 == 9) continue;
      train += (train.empty() ? "" : "\n\n") + text.units[k];
    }
    fuzz::require(attn::data::decode_chars(c.vocab, c.train) == train, "the training ids decode to the text", input);
  }
  for (int length : {1, 3, 8}) {
    for (const attn::data::TextWindow& w : attn::data::text_windows(c.train, length, 2))
      fuzz::require(int(w.tokens.size()) == length + 1, "training windows are full", input);
    size_t predicted = 0;
    for (const attn::data::TextWindow& w : attn::data::covering_windows(c.heldout, length)) {
      fuzz::require(w.tokens.size() >= 2 && int(w.tokens.size()) <= length + 1, "covering windows fit", input);
      predicted += w.tokens.size() - 1;
    }
    fuzz::require(predicted == (c.heldout.empty() ? 0 : c.heldout.size() - 1), "every held-out id but one predicted",
                  input);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  const std::string input(fuzz::text(data, size));
  const int max_chars = size > 0 ? data[0] % 64 : 0;
  for (TextCorpusKind kind : {TextCorpusKind::tang_poems, TextCorpusKind::founding_documents, TextCorpusKind::own}) {
    attn::data::ParsedText text;
    std::string why;
    if (!attn::data::parse_corpus(kind, input, &text, &why)) {
      fuzz::require(!why.empty(), "a refused text says why", input);
      fuzz::require(text.units.empty(), "a refused text has no units", input);
      continue;
    }
    check_units(kind, text, input);
    check_corpus(text, max_chars, 0.0f, input);
    check_corpus(text, max_chars, 0.1f, input);
  }
  return 0;
}
