// repo_file.h: reading a file of the checkout from a test. The tests run from the
// repository's root (WORKING_DIRECTORY in tests/CMakeLists.txt); under node the
// test programs that read files see the host's through NODERAWFS.
#pragma once

#include <cstdio>
#include <string>

namespace attn::test {

// Appends the bytes of `path` (relative to the repository's root) to `out`; false
// when it cannot be opened.
inline bool read_repo_file(const char* path, std::string& out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return true;
}

}  // namespace attn::test
