// char_lm_reach.h: how far a trained language model reads (curriculum I2):
// the held-out loss at each position of windows longer than the context it
// was trained on. Each window is read whole, its tokens at positions 0 to
// length-1, and the loss of predicting the token after position i is averaged
// over the windows.
//
// A learned position table has no row past the context, so such a model
// cannot read a token there: its losses stop at the context, and the
// positions after it hold no value (NaN, count 0, past `reach`) -- never an
// invented one, and never the loss of re-reading a shorter window, which would
// measure something else. The other kinds (sinusoidal, rope, alibi, none)
// read every position.
#pragma once

#include <vector>

#include "train/char_lm.h"

namespace attn::train {

struct PositionLosses {
  int context = 0;             // the training length, to mark on a plot
  int length = 0;              // positions asked for
  int reach = 0;               // positions with a value: 0 .. reach-1
  int windows = 0;             // windows averaged
  std::vector<double> loss;    // (length) mean nats per character at each position; NaN past reach
  std::vector<int> count;      // (length) predictions averaged at each position; 0 past reach
  // The mean over positions [begin, end) (clamped to reach), weighted by
  // count; NaN when none has a value.
  double mean(int begin, int end) const;
};

// The held-out ids cut into windows of length + 1 ids, starting every `stride`
// ids (0: length, so the windows follow one another; at most max_windows of
// them, 0: all that fit whole), each read by the model at positions 0 ..
// length-1. With a stride of length / k, each character is read at k
// positions, one in each k-th of the window: the bands' means are then taken
// over the same characters, so a rise from the first band to the last is the
// model's, not the text's.
PositionLosses loss_per_position(const CharLm& model, const std::vector<int>& ids, int length, int max_windows = 0,
                                 int stride = 0);

}  // namespace attn::train
