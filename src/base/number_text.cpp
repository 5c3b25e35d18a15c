#include "base/number_text.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace attn {

const char* const kBeyondFloat = "not finite or too large for a float (magnitude below 3.4e+38)";

bool finite_float(double x, float* out) {
  if (!std::isfinite(x)) return false;
  // Rounding decides, not a comparison with FLT_MAX: the shortest text of FLT_MAX
  // ("3.40282347e+38") reads back as a double just above it and rounds to it.
  const float f = float(x);
  if (!std::isfinite(f)) return false;
  *out = f;
  return true;
}

namespace {

// The whole of `text` as a decimal number in a double; false for anything else.
bool parse_decimal(std::string_view text, double* out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty() || text.size() > 64) return false;
  // Decimal only: strtod would also read "inf", "nan" and hexadecimal.
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') digit = true;
    else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') return false;
  }
  if (!digit) return false;
  const std::string s(text);
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

NumberText parse_float_text(std::string_view text, float* out) {
  double d = 0.0;
  if (!parse_decimal(text, &d)) return NumberText::not_a_number;
  return finite_float(d, out) ? NumberText::ok : NumberText::beyond_float;
}

bool parse_whole_text(std::string_view text, long long lo, long long hi, long long* out) {
  double d = 0.0;
  if (!parse_decimal(text, &d) || !std::isfinite(d) || d != std::floor(d) || d < double(lo) || d > double(hi))
    return false;
  *out = (long long)d;
  return true;
}

}  // namespace attn
