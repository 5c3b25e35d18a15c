// grad_tree.cpp: the fixed reduction tree over a batch's examples (see grad_tree.h).
#include "train/grad_tree.h"

#include <algorithm>

namespace attn::train {

// ---------------------------------------------------------------- 1 layout
GradientLayout gradient_layout(const ParamList& params) {
  GradientLayout g;
  for (const Param* p : params) {
    g.values.push_back(p->value.data());
    g.offset.push_back(g.size);
    g.size += size_t(p->value.size());
  }
  return g;
}

size_t GradientLayout::offset_of(const Param& p) const {
  for (size_t k = 0; k < values.size(); ++k)
    if (values[k] == p.value.data()) return offset[k];
  return size;  // not a parameter of this layout: past the end
}

// ---------------------------------------------------------------- 2 the tree
int tree_split(int begin, int end) {
  int half = 1;
  while (2 * half < end - begin) half *= 2;
  return begin + half;
}

namespace {
void cover(int lo, int hi, int begin, int end, std::vector<TreeNode>& out) {
  if (hi <= begin || end <= lo) return;
  if (begin <= lo && hi <= end) {
    out.push_back({lo, hi});
    return;
  }
  const int mid = tree_split(lo, hi);
  cover(lo, mid, begin, end, out);
  cover(mid, hi, begin, end, out);
}

// y += x, element by element (each sum rounded once; vectorises).
void add_into(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}
}  // namespace

std::vector<TreeNode> tree_cover(int batch, int begin, int end) {
  std::vector<TreeNode> out;
  if (batch > 0) cover(0, batch, std::max(0, begin), std::min(end, batch), out);
  return out;
}

// ---------------------------------------------------------------- 3 shares
void GradientShare::reset(int batch_size, int first, int last, size_t floats, bool zero) {
  batch = batch_size;
  begin = first;
  end = last;
  size = floats;
  nodes = tree_cover(batch, begin, end);
  if (zero)
    leaves.assign(size_t(std::max(0, end - begin)) * size, 0.0f);
  else
    leaves.resize(size_t(std::max(0, end - begin)) * size);
  losses.assign(size_t(std::max(0, end - begin)), 0.0);
}

namespace {
// The sum of node [lo, hi), left in the leaf of example lo, over floats [from, from + count).
void sum_node(GradientShare& s, int lo, int hi, size_t from, size_t count) {
  if (hi - lo < 2) return;
  const int mid = tree_split(lo, hi);
  sum_node(s, lo, mid, from, count);
  sum_node(s, mid, hi, from, count);
  add_into(s.leaf(lo) + from, s.leaf(mid) + from, count);
}
}  // namespace

void GradientShare::sum_leaves(size_t from, size_t count) {
  for (const TreeNode& n : nodes) sum_node(*this, n.begin, n.end, from, count);
}

namespace {
struct Given {
  TreeNode node;
  float* sum;
};

// Node [lo, hi)'s sum: a given one, or its halves' sums added (into the left's
// storage). Null when a leaf is missing.
float* combine(std::vector<Given>& given, int lo, int hi, size_t size) {
  for (Given& g : given)
    if (g.node == TreeNode{lo, hi}) return g.sum;
  if (hi - lo < 2) return nullptr;
  const int mid = tree_split(lo, hi);
  float* left = combine(given, lo, mid, size);
  float* right = left ? combine(given, mid, hi, size) : nullptr;
  if (!right) return nullptr;
  add_into(left, right, size);
  return left;
}
}  // namespace

bool reduce_shares(const std::vector<GradientShare*>& shares, std::vector<float>& grad, double* loss) {
  const float* root = reduce_shares_in_place(shares, loss);
  if (!root) return false;
  grad.assign(root, root + shares[0]->size);
  return true;
}

const float* reduce_shares_in_place(const std::vector<GradientShare*>& shares, double* loss) {
  if (shares.empty()) return nullptr;
  const int batch = shares[0]->batch;
  const size_t size = shares[0]->size;
  // The shares must tile [0, batch) (checked before anything is added).
  std::vector<const GradientShare*> order(shares.begin(), shares.end());
  std::sort(order.begin(), order.end(), [](const GradientShare* a, const GradientShare* b) { return a->begin < b->begin; });
  int next = 0;
  for (const GradientShare* s : order) {
    if (s->batch != batch || s->size != size || s->begin != next || s->end < s->begin) return nullptr;
    next = s->end;
  }
  if (next != batch || batch < 1) return nullptr;
  std::vector<Given> given;
  for (GradientShare* s : shares)
    for (size_t k = 0; k < s->nodes.size(); ++k) given.push_back({s->nodes[k], s->node_sum(k)});
  const float* root = combine(given, 0, batch, size);
  if (!root) return nullptr;
  double total = 0.0;
  for (const GradientShare* s : order)
    for (double l : s->losses) total += l;
  if (loss) *loss = total;
  return root;
}

// ---------------------------------------------------------------- 4 splitting a batch
std::vector<int> split_batch(int batch, int workers) {
  workers = std::max(1, workers);
  std::vector<int> bounds(size_t(workers) + 1, 0);
  for (int w = 1; w <= workers; ++w) {
    const int share = batch / workers + (w - 1 < batch % workers ? 1 : 0);
    bounds[size_t(w)] = bounds[size_t(w) - 1] + share;
  }
  return bounds;
}

}  // namespace attn::train
