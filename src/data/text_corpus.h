// text_corpus.h: real text for the character language model (curriculum H):
// the files the set-up step fetches from Debian, parsers that turn them into
// clean text, a character vocabulary with a train / held-out split, and the
// windows of ids a model trains on.
//
// The files are never part of the repository: `scripts/lab setup` downloads the
// Debian packages into the lab's cache (corpora/ beside the other downloads) and
// read_corpus() reads them from there.
//
//   tang_poems          fortunes-zh, usr/share/games/fortunes/tang300: the Tang
//                       poems, UTF-8. A record is a green 《title》 line, a yellow
//                       作者：author line (ANSI colour codes) and the poem, one
//                       couplet a line ("五个字，五个字。"); records end with a
//                       line "%".
//   founding_documents  miscfiles, usr/share/state/us-constitution and
//                       us-declaration: ASCII prose wrapped at ~70 columns,
//                       paragraphs separated by blank lines, headings ("Article I",
//                       "Section 2") as one-line paragraphs of their own.
//   own                 the learner's own text, pasted or dropped into the page
//                       (UTF-8, any language, at most kMaxOwnTextBytes): never a
//                       file of the lab's; the page hands it over (provide_corpus).
//
// Clean text is a list of units (a poem: its lines joined by '\n'; a paragraph:
// one line). The token stream joins them with a blank line between units.
//
// Sections: 1 corpora and files, 2 parsers, 3 vocabulary and split, 4 windows,
// 5 the forms of a poem line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/vocab.h"

namespace attn::data {

// ---------------------------------------------------------------- 1 corpora and files
enum class TextCorpusKind { tang_poems, founding_documents, own };
const char* text_corpus_name(TextCorpusKind kind);  // "tang_poems", "founding_documents", "own"

// The cached files of a corpus, in the order they are joined (none for `own`).
std::vector<std::string> corpus_file_names(TextCorpusKind kind);
// Where set-up puts them: $LAB_CORPUS_DIR when set (natively), else the folder
// the build was configured with (CMake's LAB_CORPUS_DIR: <the lab's cache>/corpora).
std::string default_corpus_dir();
// Reads the files of `kind` from `dir` and joins them with a blank line. A
// missing, unreadable or oversized file gives false and *why names it and says
// to run the set-up step. Text handed over with provide_corpus() is used
// instead of the files.
bool read_corpus(TextCorpusKind kind, const std::string& dir, std::string* raw, std::string* why);
bool parse_text_corpus_name(const std::string& name, TextCorpusKind* kind);

// A page has no cache folder: it fetches a corpus when a lesson needs it and
// hands the bytes (the files joined as read_corpus joins them) to each of its
// modules here. Kept for the life of the process; thread-safe. Bytes over
// kMaxCorpusBytes are refused (false).
bool provide_corpus(TextCorpusKind kind, std::string raw);
bool corpus_provided(TextCorpusKind kind);

// ---------------------------------------------------------------- 2 parsers
// Inputs larger than this are refused (the real files are 89 KB and 55 KB).
constexpr size_t kMaxCorpusBytes = size_t(16) << 20;
// The learner's own text: at most 1 MiB (a short novel; what a browser's storage
// keeps easily, and what the page's model reads through in minutes).
constexpr size_t kMaxOwnTextBytes = size_t(1) << 20;

struct ParsedText {
  std::vector<std::string> units;  // poems or paragraphs, each non-empty
  int skipped = 0;                 // records or paragraphs left out (malformed; headings)
};

// Removes ANSI escape sequences: CSI (ESC '[' parameters, final byte 0x40-0x7e)
// and any other ESC with the byte after it.
std::string strip_ansi(std::string_view text);
// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF); *bad_at receives the first bad byte's offset.
bool valid_utf8(std::string_view text, size_t* bad_at = nullptr);
// The code points of valid UTF-8 text, one string each.
std::vector<std::string> utf8_chars(std::string_view text);

// tang300: every record with a 《title》 line, a 作者： line and at least one
// line of poem gives one unit (the poem's lines, trimmed, blank ones dropped);
// other records are counted in `skipped`. Refuses (false, *why) input that is
// empty, too large, not UTF-8, or has no poem at all.
bool parse_tang_poems(std::string_view raw, ParsedText* out, std::string* why);
// Plain prose: each paragraph becomes one line (wrapped lines joined, runs of
// spaces and tabs made one space). A one-line paragraph that does not end in
// . , ; : ! or ? is a heading and is skipped. Refuses input that is empty, too
// large, not UTF-8 or holds no paragraph.
bool parse_paragraphs(std::string_view raw, ParsedText* out, std::string* why);
// The learner's own text, in any language: paragraphs separated by blank lines,
// each a unit with its line breaks kept (a poem's lines, a list) and the white
// space at either end of each line trimmed; nothing is skipped (a one-line
// paragraph is a line of text, not a heading: lines of Chinese end in 。, not in
// ASCII punctuation). Refuses, with a reason a learner can act on: an empty text
// (or white space only), more than kMaxOwnTextBytes, bytes that are not UTF-8,
// and binary data (a NUL, or control characters other than tab, line feed and
// carriage return).
bool parse_own_text(std::string_view raw, ParsedText* out, std::string* why);
bool parse_corpus(TextCorpusKind kind, std::string_view raw, ParsedText* out, std::string* why);

// ---------------------------------------------------------------- 3 vocabulary and split
struct CharCorpusDesc {
  int max_chars = 0;       // keep the most frequent characters of the training split
                           // (0: all of them); the rest become the unknown token
  int heldout_every = 10;  // unit k is held out when k % heldout_every == heldout_every - 1
                           // (< 2: nothing is held out)
  float heldout_tail = 0;  // > 0: instead, the held-out part is this share of the text's
                           // characters taken from its end (starting at a line break
                           // when one is near), so a text of one paragraph has one too
};
// U+FFFD, the replacement character, is always the unknown token, never an entry of
// the table: the page writes it for a character it cannot show (outside its fonts).
constexpr const char* kUnshownChar = "\xef\xbf\xbd";

struct CharCorpus {
  CharCorpusDesc desc;
  // id -> one character, most frequent first (ties in byte order); the last id
  // is "<unk>" (vocab.unknown): characters outside the table.
  Vocab vocab;
  std::vector<int> train, heldout;   // the units of each split, joined by "\n\n"
  int train_units = 0, heldout_units = 0;
  int train_unknown = 0, heldout_unknown = 0;  // how many ids of each split are <unk>
};

// Splits the units, counts characters on the training split only, builds the
// table and encodes both splits.
CharCorpus make_char_corpus(const ParsedText& text, const CharCorpusDesc& desc);
// The characters of `ids` ("<unk>" for the unknown token, "?" out of range).
std::string decode_chars(const Vocab& vocab, const std::vector<int>& ids);

// ---------------------------------------------------------------- 4 windows
// length + 1 consecutive ids: a model reads tokens[0..length-1] and predicts
// tokens[1..length].
struct TextWindow {
  std::vector<int> tokens;
};

// Training windows: every full window (length + 1 ids) starting at 0, stride,
// 2 stride, ... (length >= 1, stride >= 1).
std::vector<TextWindow> text_windows(const std::vector<int>& ids, int length, int stride);
// Evaluation windows: consecutive windows sharing one id (starts 0, length,
// 2 length, ...), the last one shorter, so that every id but the first is
// predicted exactly once -- the held-out loss per character.
std::vector<TextWindow> covering_windows(const std::vector<int>& ids, int length);

// ---------------------------------------------------------------- 5 the forms of a poem line
// A couplet of regulated verse: two halves of five (wuyan) or seven (qiyan)
// characters, the first ended by "，", the second by "。", "？" or "！".
enum class LineForm { five, seven, other };
// The form of one line given as its characters (one string each; any string
// that is not punctuation counts as one character, "<unk>" included).
LineForm poem_line_form(const std::vector<std::string>& chars);

}  // namespace attn::data
