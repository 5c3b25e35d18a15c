// widget_log.h: a record of the interactive widgets drawn this frame (id, kind,
// rectangle in screen units = CSS pixels on the web), so browser tests and
// accessibility code can find them on a canvas that has no DOM widgets.
#pragma once

#include <string>
#include <vector>

namespace ui {

struct WidgetRect {
  std::string id;    // stable, e.g. "edit:q:0:1", "nav:next", "lesson:first-look"
  std::string kind;  // "drag-number", "button", "list-item"
  float x = 0, y = 0, w = 0, h = 0;
  bool focused = false;  // has the keyboard (ImGui's navigation cursor is on it)
};

// Starts a new frame's record.
void widgets_begin_frame();
// Ends it: from now on widgets_last_frame() gives this frame's widgets (so a
// test that reads them between frames sees what is on screen, not the frame before).
void widgets_end_frame();
// Records the last ImGui item (call right after drawing it) if it is visible.
void widgets_record_last(const std::string& id, const char* kind);
// The widgets recorded in the last completed frame.
const std::vector<WidgetRect>& widgets_last_frame();

}  // namespace ui
