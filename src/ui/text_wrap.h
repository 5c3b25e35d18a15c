// text_wrap.h: wrapped text that breaks lines where a reader expects: at spaces
// and between Chinese characters, never inside a number ("0.63") and never
// before closing punctuation ("，", "。", "）") or after opening punctuation.
// (ImGui 1.86 also breaks after any '.' or ',', which splits numbers, and
// anywhere inside Chinese text.)
#pragma once

#include <string_view>
#include <vector>

namespace ui {

// The lines of `text` at most `width` wide (a single word wider than that gets a
// line of its own). A '\n' always ends a line; spaces at a break are dropped.
std::vector<std::string_view> wrap_lines(std::string_view text, float width);

// Draws `text` from the cursor, which may follow SameLine: every line starts at
// the cursor's x, and lines end before screen x `right`. Uses the current text
// colour (push ImGuiCol_Text for another).
void text_wrapped(std::string_view text, float right);

}  // namespace ui
