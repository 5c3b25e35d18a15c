// The language models' text: ANSI stripping and UTF-8 checks, the parsers on
// hand-written inputs (records, headings, refusals), the vocabulary and split,
// the windows, the line forms, and -- from the set-up step's cache -- the real
// corpora (these fail with a message to run `scripts/lab setup` when the cache
// has no corpora; nothing here uses the network).
//
// Sections: 1 text helpers, 2 parsers, 3 vocabulary and split, 4 windows and
// line forms, 5 the cached corpora.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "data/text_corpus.h"

using namespace attn::data;

namespace {
// Reads and parses a cached corpus; REQUIREs that set-up has fetched it.
ParsedText cached(TextCorpusKind kind) {
  std::string raw, why;
  const bool read = read_corpus(kind, default_corpus_dir(), &raw, &why);
  REQUIRE_MESSAGE(read, why);
  ParsedText text;
  const bool parsed = parse_corpus(kind, raw, &text, &why);
  REQUIRE_MESSAGE(parsed, why);
  return text;
}

std::string joined(const std::vector<std::string>& units) {
  std::string s;
  for (const std::string& u : units) s += (s.empty() ? "" : "\n\n") + u;
  return s;
}
}  // namespace

// ---------------------------------------------------------------- 1 text helpers
TEST_CASE("text: ANSI colour codes are removed, the text between them kept") {
  CHECK(strip_ansi("\x1b[32m《题》\x1b[m") == "《题》");
  CHECK(strip_ansi("a\x1b[1;33mb\x1b[0mc") == "abc");
  CHECK(strip_ansi("a\x1b") == "a");        // a lone ESC at the end
  CHECK(strip_ansi("a\x1b" "Mb") == "ab");  // a two-byte escape
  CHECK(strip_ansi("a\x1b[") == "a");       // a cut-off sequence
  CHECK(strip_ansi("\x1b[12") == "");
  CHECK(strip_ansi("诗\x1b\xe8\xaf\x97") == "诗诗");  // ESC before a UTF-8 lead byte takes nothing with it
}

TEST_CASE("text: UTF-8 is checked byte by byte, characters are code points") {
  size_t at = 99;
  CHECK(valid_utf8("abc 诗 \xf0\x9f\x98\x80"));
  CHECK_FALSE(valid_utf8("ab\xff", &at));
  CHECK(at == 2);
  CHECK_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(valid_utf8("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK_FALSE(valid_utf8("\xe8\xaf"));          // cut short
  CHECK(utf8_chars("a诗，\n") == std::vector<std::string>{"a", "诗", "，", "\n"});
}

// ---------------------------------------------------------------- 2 parsers
TEST_CASE("parsers: a tang300 record gives its poem without title, author, colours or separators") {
  const std::string raw =
      "\x1b[32m《山居》\x1b[m\r\n\x1b[33m作者：某人\x1b[m\r\n  青山连远水，白鸟下晴沙。\r\n\r\n"
      "\xe3\x80\x80风定闻疏磬，云开见几家。\r\n%\r\n"
      "《无作者》\n只有一行，没有作者行。\n%\n"  // malformed: skipped
      "\x1b[32m《夜坐》\x1b[m\n\x1b[33m作者：又一人\x1b[m\n灯前书未尽，窗外月初明。\n";  // no final "%"
  ParsedText text;
  std::string why;
  REQUIRE(parse_tang_poems(raw, &text, &why));
  REQUIRE(text.units.size() == 2);
  CHECK(text.units[0] == "青山连远水，白鸟下晴沙。\n风定闻疏磬，云开见几家。");
  CHECK(text.units[1] == "灯前书未尽，窗外月初明。");
  CHECK(text.skipped == 1);
}

TEST_CASE("parsers: prose paragraphs are unwrapped, one-line headings are skipped") {
  const std::string raw =
      "A Title Line\n\n\nSection 1\n\nThe first paragraph is wrapped\nover  two lines.\n\n"
      "   \nA heading with a colon:\n\nSigned by\nNobody In Particular\n";
  ParsedText text;
  std::string why;
  REQUIRE(parse_paragraphs(raw, &text, &why));
  CHECK(text.units == std::vector<std::string>{"The first paragraph is wrapped over two lines.",
                                               "A heading with a colon:", "Signed by Nobody In Particular"});
  CHECK(text.skipped == 2);
}

TEST_CASE("parsers: empty, oversized, non-UTF-8 or text without a unit is refused with a reason") {
  ParsedText text;
  std::string why;
  for (TextCorpusKind kind : {TextCorpusKind::tang_poems, TextCorpusKind::founding_documents}) {
    CAPTURE(std::string(text_corpus_name(kind)));
    CHECK_FALSE(parse_corpus(kind, "", &text, &why));
    CHECK(why.find("empty") != std::string::npos);
    CHECK_FALSE(parse_corpus(kind, "ok\n\xff\n", &text, &why));
    CHECK(why.find("UTF-8") != std::string::npos);
    CHECK_FALSE(parse_corpus(kind, std::string(kMaxCorpusBytes + 1, 'a'), &text, &why));
    CHECK(why.find("16 MiB") != std::string::npos);
    CHECK_FALSE(parse_corpus(kind, "\n%\n  \n", &text, &why));
    CHECK(text.units.empty());
  }
  // A control character other than a tab makes a unit malformed.
  CHECK_FALSE(parse_tang_poems("《题》\n作者：甲\n一二\x01三，四五六。\n", &text, &why));
  CHECK(parse_paragraphs("Fine text.\n\nBad\x7f text.\n", &text, &why));
  CHECK(text.units == std::vector<std::string>{"Fine text."});
}

TEST_CASE("parsers: the learner's own text keeps every paragraph and line, in any language") {
  ParsedText text;
  std::string why;
  // Chinese lines ending in 。 (one-line paragraphs) are kept; so are lines that
  // end in no punctuation at all. Lines keep their breaks; white space at either
  // end of a line (ASCII and the ideographic space) goes, a tab inside becomes a space.
  REQUIRE(parse_own_text("床前明月光，疑是地上霜。\r\n\n\n  举头望明月，\n低头思故乡。  \n\nTitle line\n\n"
                         "\xe3\x80\x80" "a\tb  \n",
                         &text, &why));
  CHECK(text.units == std::vector<std::string>{"床前明月光，疑是地上霜。", "举头望明月，\n低头思故乡。", "Title line", "a b"});
  CHECK(text.skipped == 0);
  CHECK(parse_corpus(TextCorpusKind::own, "one line", &text, &why));
  CHECK(text.units == std::vector<std::string>{"one line"});
  REQUIRE(parse_own_text("old\rmac\r\rlines", &text, &why));  // a lone carriage return ends a line too
  CHECK(text.units == std::vector<std::string>{"old\nmac", "lines"});
}

TEST_CASE("parsers: the learner's own text refuses what is not text, with a reason to act on") {
  ParsedText text;
  std::string why;
  for (const std::string& blank : {std::string(), std::string(" \n\t\n\r\n"), std::string("\xe3\x80\x80\n")}) {
    CHECK_FALSE(parse_own_text(blank, &text, &why));
    CHECK(why == "the text is empty");
  }
  CHECK_FALSE(parse_own_text("caf\xe9" " au lait", &text, &why));  // Latin-1, not UTF-8
  CHECK(why.find("not UTF-8") != std::string::npos);
  CHECK(why.find("save it as UTF-8") != std::string::npos);
  CHECK_FALSE(parse_own_text(std::string("PK\x03\x04", 4) + "zip data", &text, &why));
  CHECK(why.find("binary") != std::string::npos);
  CHECK_FALSE(parse_own_text(std::string("text\0more", 9), &text, &why));
  CHECK(why.find("binary") != std::string::npos);
  CHECK_FALSE(parse_own_text(std::string(kMaxOwnTextBytes + 1, 'a'), &text, &why));
  CHECK(why.find("at most 1024 KiB") != std::string::npos);
  CHECK(parse_own_text(std::string(kMaxOwnTextBytes, 'a'), &text, &why));  // the limit itself is taken
}

TEST_CASE("corpus files: a missing file names itself and the set-up step") {
  std::string raw, why;
  CHECK_FALSE(read_corpus(TextCorpusKind::tang_poems, "/nonexistent-attnlab-folder", &raw, &why));
  CHECK(why.find("/nonexistent-attnlab-folder/tang300") != std::string::npos);
  CHECK(why.find("scripts/lab setup") != std::string::npos);
  CHECK(why.find("fortunes-zh") != std::string::npos);
  CHECK_FALSE(read_corpus(TextCorpusKind::founding_documents, "", &raw, &why));
  CHECK(why.find("miscfiles") != std::string::npos);
  CHECK(corpus_file_names(TextCorpusKind::founding_documents) ==
        std::vector<std::string>{"us-constitution", "us-declaration"});
  // The learner's own text is never a file: until the page hands one over, there is none.
  TextCorpusKind own;
  REQUIRE(parse_text_corpus_name("own", &own));
  CHECK(own == TextCorpusKind::own);
  CHECK(corpus_file_names(own).empty());
}

// ---------------------------------------------------------------- 3 vocabulary and split
TEST_CASE("vocabulary: most frequent first, counted on the training split, the rest are <unk>") {
  ParsedText text;
  text.units = {"aab", "ba", "zz", "abc"};  // unit 2 is held out with heldout_every = 3
  CharCorpusDesc desc;
  desc.heldout_every = 3;
  const CharCorpus all = make_char_corpus(text, desc);
  CHECK(all.train_units == 3);
  CHECK(all.heldout_units == 1);
  // train "aab\n\nba\n\nabc": a 4, b 3, \n 4, c 1; ties in byte order ('\n' < 'a').
  CHECK(all.vocab.words == std::vector<std::string>{"\n", "a", "b", "c", "<unk>"});
  CHECK(all.vocab.unknown == 4);
  CHECK(decode_chars(all.vocab, all.train) == "aab\n\nba\n\nabc");
  CHECK(all.heldout == std::vector<int>{4, 4});  // "zz": never seen in training
  CHECK(all.heldout_unknown == 2);
  CHECK(all.train_unknown == 0);
  desc.max_chars = 2;
  const CharCorpus small = make_char_corpus(text, desc);
  CHECK(small.vocab.size() == 3);
  CHECK(small.train_unknown == 4);  // b b b c
  CHECK(decode_chars(small.vocab, small.train) == "aa<unk>\n\n<unk>a\n\na<unk><unk>");
  desc.heldout_every = 0;
  CHECK(make_char_corpus(text, desc).heldout.empty());
}

TEST_CASE("split by tail: a text of one paragraph has a held-out part, begun at a line break when one is near") {
  ParsedText text;
  CharCorpusDesc desc;
  desc.heldout_tail = 0.1f;
  // One paragraph of 100 characters: 90 train, 10 held out.
  text.units = {std::string(100, 'x')};
  CharCorpus c = make_char_corpus(text, desc);
  CHECK(c.train.size() == 90);
  CHECK(c.heldout.size() == 10);
  CHECK(c.train_units == 1);
  CHECK(c.heldout_units == 0);  // the paragraph begins in the training part
  // A line break just before the cut moves the cut after it (within a tenth of the tail).
  std::string lines = std::string(89, 'a') + "\n" + std::string(110, 'b');  // 200 characters, cut at 180
  text.units = {lines};
  c = make_char_corpus(text, desc);
  CHECK(c.heldout.size() == 20);  // no break within 2 characters of 180: cut where it falls
  lines = std::string(178, 'a') + "\n" + std::string(21, 'b');  // a break at 178: the tail starts at 179
  text.units = {lines};
  c = make_char_corpus(text, desc);
  CHECK(c.heldout.size() == 21);  // the b's (never seen in training: <unk>)
  CHECK(c.heldout_unknown == 21);
  CHECK(c.train.size() == 179);
  // Units that begin in the tail count as held out; every character is in one split.
  text.units = {std::string(50, 'a'), std::string(30, 'b'), "cc"};
  c = make_char_corpus(text, desc);
  CHECK(c.train.size() + c.heldout.size() == 50 + 2 + 30 + 2 + 2);
  CHECK(c.train_units == 2);
  CHECK(c.heldout_units == 1);
  // Two characters: one each side.
  text.units = {"ab"};
  c = make_char_corpus(text, desc);
  CHECK(c.train.size() == 1);
  CHECK(c.heldout.size() == 1);
}

TEST_CASE("vocabulary: U+FFFD, a character the page cannot show, is always <unk>") {
  ParsedText text;
  text.units = {std::string("a") + kUnshownChar + kUnshownChar + kUnshownChar + "ab"};
  CharCorpusDesc desc;
  desc.heldout_every = 0;
  const CharCorpus c = make_char_corpus(text, desc);
  CHECK(c.vocab.words == std::vector<std::string>{"a", "b", "<unk>"});
  CHECK(c.train_unknown == 3);
  CHECK(decode_chars(c.vocab, c.train) == "a<unk><unk><unk>ab");
}

// ---------------------------------------------------------------- 4 windows and line forms
TEST_CASE("windows: training windows are full, covering windows predict every id but the first once") {
  std::vector<int> ids(10);
  for (int i = 0; i < 10; ++i) ids[size_t(i)] = i;
  const std::vector<TextWindow> w = text_windows(ids, 4, 3);  // starts 0, 3 (6 + 5 > 10)
  REQUIRE(w.size() == 2);
  CHECK(w[1].tokens == std::vector<int>{3, 4, 5, 6, 7});
  CHECK(text_windows(ids, 4, 1).size() == 6);
  CHECK(text_windows(ids, 10, 1).empty());
  const std::vector<TextWindow> c = covering_windows(ids, 4);  // 0-4, 4-8, 8-9
  REQUIRE(c.size() == 3);
  std::map<int, int> predicted;
  for (const TextWindow& x : c)
    for (size_t k = 1; k < x.tokens.size(); ++k) ++predicted[x.tokens[k]];
  CHECK(predicted.size() == 9);
  for (const auto& kv : predicted) CHECK(kv.second == 1);
  CHECK(predicted.count(0) == 0);
  CHECK(covering_windows({7}, 4).empty());
}

TEST_CASE("line forms: five and seven characters a half, a comma between, a full stop (or ? !) at the end") {
  CHECK(poem_line_form(utf8_chars("青山连远水，白鸟下晴沙。")) == LineForm::five);
  CHECK(poem_line_form(utf8_chars("一二三四五六七，一二三四五六七？")) == LineForm::seven);
  CHECK(poem_line_form({"一", "二", "<unk>", "四", "五", "，", "一", "二", "三", "四", "五", "！"}) == LineForm::five);
  CHECK(poem_line_form(utf8_chars("一二三四五，一二三四五六。")) == LineForm::other);  // 5 + 6
  CHECK(poem_line_form(utf8_chars("一二三四五。一二三四五，")) == LineForm::other);    // marks swapped
  CHECK(poem_line_form(utf8_chars("一二三四，五一二三四五。")) == LineForm::other);    // comma misplaced
  CHECK(poem_line_form(utf8_chars("一二三四五六七，一二三四五六七")) == LineForm::other);
  CHECK(poem_line_form({}) == LineForm::other);
}

// ---------------------------------------------------------------- 5 the cached corpora
TEST_CASE("cached corpus: tang300 gives 313 poems, clean, and most lines follow the five- or seven-character form") {
  const ParsedText text = cached(TextCorpusKind::tang_poems);
  CHECK(text.units.size() == 313);
  CHECK(text.skipped == 0);
  int lines = 0, formed = 0;
  for (const std::string& poem : text.units) {
    CHECK(poem.find('\x1b') == std::string::npos);
    CHECK(poem.find("作者") == std::string::npos);
    CHECK(poem.find('%') == std::string::npos);
    size_t start = 0;
    while (start <= poem.size()) {
      const size_t end = std::min(poem.find('\n', start), poem.size());
      ++lines;
      formed += poem_line_form(utf8_chars(poem.substr(start, end - start))) != LineForm::other;
      start = end + 1;
    }
  }
  MESSAGE("tang300: " << text.units.size() << " poems, " << lines << " lines, " << formed
                      << " in the five- or seven-character form");
  CHECK(lines > 1500);
  CHECK(formed > lines * 9 / 10);
  const CharCorpus c = make_char_corpus(text, CharCorpusDesc());
  MESSAGE("characters: " << c.train.size() << " train, " << c.heldout.size() << " held out, " << c.vocab.size() - 1
                         << " distinct in training");
  CHECK(c.heldout_units == 31);
}

TEST_CASE("cached corpus: the founding documents give prose paragraphs without headings") {
  const ParsedText text = cached(TextCorpusKind::founding_documents);
  const std::string all = joined(text.units);
  MESSAGE("founding documents: " << text.units.size() << " paragraphs (" << all.size() << " bytes), " << text.skipped
                                 << " headings and short lines skipped");
  CHECK(text.units.size() > 150);
  CHECK(all.size() > 40000);
  CHECK(all.find("We the People of the United States") != std::string::npos);
  CHECK(all.find("When in the Course of human events") != std::string::npos);
  CHECK(all.find("Section 1\n") == std::string::npos);
  CHECK(all.find("  ") == std::string::npos);
  const CharCorpus c = make_char_corpus(text, CharCorpusDesc());
  CHECK(c.vocab.size() < 100);
  CHECK(c.heldout_unknown < 5);
}
