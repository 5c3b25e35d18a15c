// fuzz_util.h: what the fuzz targets share: a failed promise aborts the run with a
// message (libFuzzer then saves the input as a crash), and text views of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace fuzz {

// Aborts with `what` when `ok` is false: a broken round trip is a finding, like a crash.
inline void require(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "fuzz: broken promise: %s\n%s\n", what, detail.c_str());
  std::abort();
}

inline std::string_view text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace fuzz
