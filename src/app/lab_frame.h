// lab_frame.h: one frame of the whole interface (lab_frame.cpp), drawn from a
// LabView and acting through LabControl (lab_view.h). What belongs to the frame
// alone -- its timing, a finger's gesture, what the page's mirror was last told --
// is FrameState, which the frame keeps from one frame to the next.
#pragma once

#include "app/lab_touch.h"
#include "app/lab_view.h"

struct FrameState {
  long frames = 0;                 // frames drawn
  double frame_ms = 0.0;           // smoothed time between frames
  double last_frame_at = 0.0;
  double ui_ms = 0.0;              // smoothed time to lay out the interface, not counting compute
  double compute_shown = 0.0;      // the last complete frame's compute
  bool touched = false;            // a finger has been seen: touch-sized controls from now on
  TouchGesture gesture;
  // The page's mirror is told of changes a few times a second at most.
  long revision_sent = 0;
  double revision_sent_at = 0.0;
  bool running_sent = false;
};

// Draws one frame: the lesson list, notices, the toolbar, the step, the live
// experiment's controls, touch gestures and the keys.
void lab_frame(LabControl& lab, FrameState& frame);
