// embedded.h: the lesson files compiled into the binary at build time (cmake/embed_files.cmake),
// so the browser and the native build read the same bytes.
#pragma once

#include <cstddef>
#include <string_view>

namespace attn {

struct EmbeddedFile {
  const char* name;  // path relative to lessons/, e.g. "index.txt"
  const char* data;  // NUL-terminated copy of the file
  std::size_t size;  // bytes, without the terminating NUL
};

extern const EmbeddedFile kEmbeddedLessons[];
extern const std::size_t kEmbeddedLessonCount;

// The embedded lesson file with this name, or nullptr.
inline const EmbeddedFile* find_embedded_lesson(std::string_view name) {
  for (std::size_t i = 0; i < kEmbeddedLessonCount; ++i)
    if (name == kEmbeddedLessons[i].name) return &kEmbeddedLessons[i];
  return nullptr;
}

}  // namespace attn
