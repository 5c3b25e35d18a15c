// card.cpp: see card.h.
#include "ui/card.h"

#include <algorithm>

namespace ui {

void card_begin(Card& card, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  card.layers.Split(dl, 2);
  card.layers.SetCurrentChannel(dl, 1);  // contents on top
  card.start = ImGui::GetCursorScreenPos();
  card.width = width;
  ImGui::BeginGroup();
  ImGui::SetCursorScreenPos(ImVec2(card.start.x + kCardPad, card.start.y + kCardPad));
  ImGui::BeginGroup();
}

void card_end(Card& card, CardColours colours) {
  ImGui::EndGroup();
  const ImVec2 content_max = ImGui::GetItemRectMax();
  ImGui::SetCursorScreenPos(card.start);
  ImGui::Dummy(ImVec2(std::max(card.width, content_max.x + kCardPad - card.start.x),
                      content_max.y + kCardPad - card.start.y));
  ImGui::EndGroup();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  card.layers.SetCurrentChannel(dl, 0);
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  if (colours.fill & IM_COL32_A_MASK) dl->AddRectFilled(a, b, colours.fill, 6.0f);
  dl->AddRect(a, b, colours.border, 6.0f);
  card.layers.Merge(dl);
}

}  // namespace ui
