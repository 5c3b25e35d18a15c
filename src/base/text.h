// text.h: small string helpers several layers share (trimming a line, joining
// words, a run of digits), so each file does not keep its own copy.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// s without the white space at either end.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The strings of v with sep between each two.
inline std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// Whether s is one or more ASCII digits and nothing else.
inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace attn
