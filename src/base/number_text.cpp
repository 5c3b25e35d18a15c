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

NumberText parse_float_text(std::string_view text, float* out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty() || text.size() > 64) return NumberText::not_a_number;
  // Decimal only: strtod would also read "inf", "nan" and hexadecimal.
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') digit = true;
    else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') return NumberText::not_a_number;
  }
  if (!digit) return NumberText::not_a_number;
  const std::string s(text);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return NumberText::not_a_number;
  return finite_float(d, out) ? NumberText::ok : NumberText::beyond_float;
}

}  // namespace attn
