// enum_names.h: one table of names per enum, behind both its name function and
// its parser, so the two can never disagree.
//
//   constexpr EnumName<Mode> kModeNames[] = {{Mode::soft, "soft"}, {Mode::hard, "hard"},
//                                            {Mode::soft, "global"}};  // an alias
//   enum_name(kModeNames, Mode::soft)           // "soft": the first row for a value
//   parse_enum(kModeNames, "global", &mode)     // true, mode = Mode::soft
//
// The first row naming a value is its canonical spelling; later rows for the
// same value are aliases the parser also accepts.
#pragma once

#include <cstddef>
#include <string>

namespace attn {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, std::size_t N>
const char* enum_name(const EnumName<E> (&names)[N], E value) {
  for (const EnumName<E>& n : names)
    if (n.value == value) return n.name;
  return "?";
}

// Exact, case-sensitive match; *out is left alone when nothing matches.
template <typename E, std::size_t N>
bool parse_enum(const EnumName<E> (&names)[N], const std::string& text, E* out) {
  for (const EnumName<E>& n : names)
    if (text == n.name) {
      *out = n.value;
      return true;
    }
  return false;
}

}  // namespace attn
