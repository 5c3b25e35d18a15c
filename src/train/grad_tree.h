// grad_tree.h: a batch's gradient as a sum over its examples in one fixed
// order, so that it has the same bits however the batch is split among
// workers -- threads natively, Web Workers in the page -- and on one core.
//
// Each example's gradient is computed on its own into a buffer of its own (a
// leaf, summed from zero). The batch's gradient is the sum of the leaves along
// one binary tree over the example indices 0 .. B-1, fixed by B alone:
//
//   node [lo, hi) = node [lo, mid) + node [mid, hi),
//   mid = lo + the largest power of two below hi - lo
//
// so for B = 8: ((g0 + g1) + (g2 + g3)) + ((g4 + g5) + (g6 + g7)), and for
// B = 5: (((g0 + g1) + (g2 + g3)) + g4). A worker given examples [a, b) adds
// its leaves up into the largest nodes that lie inside [a, b) (tree_cover) and
// hands back those nodes' sums: its GradientShare. The shares of all workers
// are then combined along the same tree (reduce_shares). A node is the same sum
// of the same leaves whoever computes it, so the result does not depend on the
// split: three workers splitting 8 examples 3/3/2 (split_batch) hand back
// [0,2) [2,3) | [3,4) [4,6) | [6,8), and the reduction adds [2,3) + [3,4),
// then [0,2) + [2,4), [4,6) + [6,8) and the two halves, as one worker would.
//
// The batch's loss is summed in double, example after example, from each
// example's own loss (as Model::forward_backward sums it).
//
// Plain data and pure functions, no threads: a worker is whatever calls a
// model's share function (char_lm.h) on its examples; thread_team.h runs them
// on native threads.
//
// Sections: 1 the layout of a gradient, 2 the tree, 3 shares and their
// reduction, 4 splitting a batch among workers.
#pragma once

#include <cstddef>
#include <vector>

#include "train/param.h"

namespace attn::train {

// ---------------------------------------------------------------- 1 layout
// Every parameter's gradient in one flat buffer, in the registry's order
// (Model::params()), each one row-major like its Param::grad.
struct GradientLayout {
  std::vector<const float*> values;  // each parameter's value storage: who it is
  std::vector<size_t> offset;        // where its gradient starts
  size_t size = 0;                   // floats in one whole gradient

  // Offset of p's gradient (p must be one of the parameters).
  size_t offset_of(const Param& p) const;
};
GradientLayout gradient_layout(const ParamList& params);

// ---------------------------------------------------------------- 2 the tree
struct TreeNode {
  int begin = 0, end = 0;  // examples [begin, end)
  bool operator==(const TreeNode& o) const { return begin == o.begin && end == o.end; }
};
// The split point of node [begin, end), end - begin >= 2.
int tree_split(int begin, int end);
// The largest nodes of the tree over `batch` examples that lie inside
// [begin, end), in order; their union is [begin, end).
std::vector<TreeNode> tree_cover(int batch, int begin, int end);

// ---------------------------------------------------------------- 3 shares
// What one worker computes: examples [begin, end) of a batch of `batch`.
struct GradientShare {
  int batch = 0, begin = 0, end = 0;
  size_t size = 0;               // floats in one gradient (GradientLayout::size)
  std::vector<TreeNode> nodes;   // tree_cover(batch, begin, end)
  // One gradient per example (end - begin, each `size` floats). After
  // sum_leaves, node k's sum is in the leaf of its first example.
  std::vector<float> leaves;
  std::vector<double> losses;    // each example's loss, summed over its units

  // Sizes everything for examples [begin, end) and zeroes the leaves (or
  // leaves them as they are, when the caller writes or zeroes each part).
  void reset(int batch, int begin, int end, size_t size, bool zero = true);
  float* leaf(int example) { return leaves.data() + size_t(example - begin) * size; }
  float* node_sum(size_t k) { return leaf(nodes[k].begin); }
  const float* node_sum(size_t k) const { return leaves.data() + size_t(nodes[k].begin - begin) * size; }
  // Adds the leaves up into the nodes, along the tree, over the floats
  // [from, from + count) of each (a model can sum each parameter's slice
  // while it is still in cache; the result is the same as one call over all).
  void sum_leaves(size_t from, size_t count);
};

// The batch's gradient (size floats, the layout's order) and summed loss from
// shares that cover examples [0, batch) exactly, in any order. Adds into the
// shares' own node sums (each is used once). false, with nothing written, if
// the shares do not fit together.
bool reduce_shares(const std::vector<GradientShare*>& shares, std::vector<float>& grad, double* loss);
// The same without the copy: the batch's gradient where the reduction left it
// (in one of the shares' buffers), or null.
const float* reduce_shares_in_place(const std::vector<GradientShare*>& shares, double* loss);

// ---------------------------------------------------------------- 4 splitting a batch
// Bounds of `workers` consecutive shares of `batch` examples, as equal as
// possible, the larger first (8 among 3: 0, 3, 6, 8). workers + 1 entries;
// workers beyond the batch get empty shares.
std::vector<int> split_batch(int batch, int workers);

}  // namespace attn::train
