// embedded.cpp: loads the lessons compiled into the binary. Lives in the lab_lessons
// library (beside the generated data) so attn_lab itself stays data-free.
#include "lab/embedded.h"
#include "lab/lesson.h"

namespace attn {

LessonSet load_embedded_lessons() {
  auto read = [](std::string_view name, std::string& out, void*) {
    const EmbeddedFile* f = find_embedded_lesson(name);
    if (!f) return false;
    out.assign(f->data, f->size);
    return true;
  };
  return load_lessons(read, nullptr);
}

}  // namespace attn
