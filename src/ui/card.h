// card.h: a padded box with a soft background around a group of widgets, used by
// the demo panels, exercises and quizzes. The background is drawn after the
// contents (when their size is known) on a layer underneath them.
#pragma once

#include <imgui.h>

namespace ui {

struct CardColours {
  // Demo panels are outlined only: in browsers that draw WebGL in software, every
  // filled card costs its area in pixels each frame. Quizzes and exercises, which
  // must stand out, pass a fill.
  ImU32 fill = 0;
  ImU32 border = IM_COL32(226, 229, 236, 255);
};

struct Card {
  ImDrawListSplitter layers;
  ImVec2 start;
  float width = 0.0f;  // outer width (at least)
};

constexpr float kCardPad = 10.0f;

// Starts a card at the cursor, at least `width` wide (padding included).
void card_begin(Card& card, float width);
// Ends it: the card becomes one item (so SameLine works after it).
void card_end(Card& card, CardColours colours = {});

}  // namespace ui
