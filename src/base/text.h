// text.h: two small string helpers several layers share (trimming a line,
// joining words), so each file does not keep its own copy.
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

}  // namespace attn
