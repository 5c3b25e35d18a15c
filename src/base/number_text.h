// number_text.h: numbers that come in from outside (JSON values, lesson text,
// settings, checks) and end up as float32.
//
// A double holds values a float cannot: 1e39 is finite as a double and infinity
// as a float, so a check made on the double lets it through to the maths (and a
// saved state holding it writes null and no longer loads). Every number that
// crosses a boundary is checked here, as the float it will become.
#pragma once

#include <string_view>

namespace attn {

// Why a number was refused, for messages: "not finite or too large for a float
// (magnitude below 3.4e+38)".
extern const char* const kBeyondFloat;

// x as a finite float: false (and *out untouched) when x is NaN, infinite, or
// beyond float range once rounded (|x| above about 3.4e+38).
bool finite_float(double x, float* out);

enum class NumberText {
  ok,
  not_a_number,  // not decimal number text (words, "0x10", "inf", "1,5", "")
  beyond_float,  // a number, but not a finite float (1e39, 1e400)
};

// The whole of `text`, spaces around it allowed, as a decimal number ("3", "-0.5",
// "3e2") that fits a finite float. *out is set only when ok.
NumberText parse_float_text(std::string_view text, float* out);

// The whole of `text`, read the same way, as a whole number in [lo, hi]: "300" and
// "3e2" give 300; "2.5", "1e400", "4294967297" for hi = 1000, or words give false
// (and leave *out untouched). Settings, view settings and quiz answers all go
// through here, so what validates is what runs.
bool parse_whole_text(std::string_view text, long long lo, long long hi, long long* out);

}  // namespace attn
