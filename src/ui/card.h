// card.h: a padded box with a soft background around a group of widgets, used by
// the demo panels, exercises and quizzes. The background is drawn after the
// contents (when their size is known) on a layer underneath them.
#pragma once

#include <imgui.h>

namespace ui {

struct CardColours {
  ImU32 fill = IM_COL32(248, 249, 252, 255);
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
