// patches.h: a tiny synthetic image task for attention over image regions
// (curriculum A1, B2, F: image captioning).
//
// An image is a grid x grid arrangement of patches, each patch x patch pixels
// in [0, 1]. Exactly one patch holds a bright shape; the caption word is that
// shape's name ("a cross", "a square", ...). A few other patches hold faint
// shapes of OTHER classes (distractors), the rest is faint noise. One position
// holds the answer: a model that averages all patches mixes the bright shape
// with the distractors; a model that attends to the right patch reads it off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace attn::data {

struct PatchDesc {
  int grid = 3;                      // grid x grid patches (N = grid^2)
  int distractors = 2;               // faint shapes of other classes (< N)
  float distractor_brightness = 0.35f;
  float noise = 0.1f;                // every pixel gets + U(0, noise)
  int train_count = 1200;
  int test_count = 300;
  uint64_t seed = 1;
};

constexpr int kPatchSide = 4;                    // pixels per patch side
constexpr int kPatchPixels = kPatchSide * kPatchSide;
constexpr int kShapeCount = 4;

// The caption words, one per shape class.
const char* shape_word(int shape);               // "cross", "square", "stripe", "pillar"

struct PatchImage {
  Mat patches;                 // (N, 16): row j = the pixels of patch j, row by row
  int label = 0;               // the bright shape's class (the caption word)
  int target_patch = 0;        // which patch holds it
  std::vector<int> shape;      // (N) class drawn in each patch, -1 = none
};

struct PatchData {
  PatchDesc desc;
  std::vector<PatchImage> train, test;
};

PatchData make_patch_data(const PatchDesc& desc);

// The whole picture for drawing: (grid*4, grid*4) pixels.
Mat image_pixels(const PatchImage& image, int grid);

}  // namespace attn::data
