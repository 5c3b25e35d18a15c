// patches.cpp: the 4x4 shape bitmaps and the image generator.
#include "data/patches.h"

#include "base/rng.h"

namespace attn::data {

namespace {

// 4x4 bitmaps, one string per shape, row by row ('#' = ink).
const char* const kBitmaps[kShapeCount] = {
    "#..#"
    ".##."
    ".##."
    "#..#",  // cross (an X)
    "####"
    "#..#"
    "#..#"
    "####",  // square (an outline)
    "...."
    "####"
    "####"
    "....",  // stripe (horizontal)
    ".##."
    ".##."
    ".##."
    ".##.",  // pillar (vertical)
};

const char* const kWords[kShapeCount] = {"cross", "square", "stripe", "pillar"};

}  // namespace

const char* shape_word(int shape) { return shape >= 0 && shape < kShapeCount ? kWords[shape] : "?"; }

PatchData make_patch_data(const PatchDesc& desc) {
  PatchData data;
  data.desc = desc;
  const int N = desc.grid * desc.grid;
  data.desc.distractors = desc.distractors < 0 ? 0 : (desc.distractors > N - 1 ? N - 1 : desc.distractors);
  if (data.desc.distractors > kShapeCount - 1) data.desc.distractors = kShapeCount - 1;
  Rng rng(desc.seed);
  auto make_one = [&]() {
    PatchImage img;
    img.patches.resize(N, kPatchPixels);
    img.shape.assign(N, -1);
    img.label = int(rng.below(kShapeCount));
    img.target_patch = int(rng.below(uint32_t(N)));
    img.shape[img.target_patch] = img.label;
    // Distractors: other classes, each used once, in free patches.
    int other = int(rng.below(kShapeCount));
    for (int d = 0; d < data.desc.distractors; ++d) {
      while (other == img.label) other = (other + 1) % kShapeCount;
      int where = int(rng.below(uint32_t(N)));
      while (img.shape[where] != -1) where = (where + 1) % N;
      img.shape[where] = other;
      other = (other + 1) % kShapeCount;
    }
    for (int j = 0; j < N; ++j) {
      const float ink = j == img.target_patch ? 1.0f : desc.distractor_brightness;
      for (int p = 0; p < kPatchPixels; ++p) {
        const bool on = img.shape[j] >= 0 && kBitmaps[img.shape[j]][p] == '#';
        img.patches(j, p) = (on ? ink : 0.0f) + desc.noise * rng.uniform();
      }
    }
    return img;
  };
  for (int i = 0; i < desc.train_count; ++i) data.train.push_back(make_one());
  for (int i = 0; i < desc.test_count; ++i) data.test.push_back(make_one());
  return data;
}

Mat image_pixels(const PatchImage& image, int grid) {
  Mat img(grid * kPatchSide, grid * kPatchSide);
  for (int j = 0; j < grid * grid; ++j)
    for (int p = 0; p < kPatchPixels; ++p)
      img((j / grid) * kPatchSide + p / kPatchSide, (j % grid) * kPatchSide + p % kPatchSide) = image.patches(j, p);
  return img;
}

}  // namespace attn::data
