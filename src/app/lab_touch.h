// lab_touch.h: what a finger does on the canvas, beyond the taps and drags SDL2
// already turns into mouse events.
//   - A swipe that starts more vertical than sideways scrolls the window under
//     it (the lesson's panels, or the keys list), with momentum after release;
//     a number it started on is let go, so a scroll never changes a value.
//   - A sideways swipe on a number drags it (ImGui, as with a mouse); on empty
//     space inside a strip that scrolls sideways (a wide matrix) it scrolls that.
//   - A tap on a number or a text field (or a long press) asks the page for a real
//     text input over it, so that the phone's keyboard can open (see web/lab.js).
#pragma once

#include <optional>
#include <string>

struct TouchGesture {
  bool down = false;       // a finger is on the canvas
  bool decided = false;    // moved far enough to be a scroll or a drag
  bool scrolling = false;  // a scroll (vertical, or sideways in a strip)
  bool sideways = false;   // the scroll moves the strip, not the page
  bool long_press_sent = false;
  float start_x = 0, start_y = 0;
  double start_ms = 0, last_ms = 0;
  float velocity = 0;  // screen units per ms, kept after release for momentum
  unsigned target_id = 0;  // the window a scroll moves, by id (a pointer may go stale between frames)
};

// A number the learner tapped: its widget id ("edit:<name>:<row>:<col>") and rectangle.
struct NumberTap {
  std::string id;
  float x = 0, y = 0, w = 0, h = 0;
};

// Call once a frame, before the windows are drawn: scrolls, and reports a tap on
// a number drawn in the previous frame. Does nothing while the pointer is a mouse.
std::optional<NumberTap> touch_update(TouchGesture& g, bool touch, double now_ms);
