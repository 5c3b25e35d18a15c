// code_writer.h: the emitter every hand-set demo writes its NumPy/PyTorch
// program through (DemoEntry::code; the program itself is beside each demo, in
// its group's file).
//
// For a hand-set demo (every demo but the trained experiments and the timing
// measurement) demo_code writes a standalone NumPy or PyTorch program that
// rebuilds the step's inputs with the learner's current values -- matrices,
// settings, and any of the lab's seeded random draws, written out as numbers --
// and computes what the panels show, with the lesson's names (Q, K, V, d_k, ...)
// and no library of ours. It prints one JSON line per output it computes:
//
//   {"name": "weights", "value": [[0.42, 0.25, 0.33], ...]}
//
// named like the demo's outputs (DemoOutputs::mats), so a test can set every
// number against the demo's own (tests/lab/test_code_export.cpp). A line may add
// "columns": [0, 1, ...] when it holds only those columns of the output (the d_k
// demo's curves stop at the current d_k, the widest its draws reach).
// Pure: no UI, no files.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "demos/registry.h"

namespace attn::demo_impl {

// The shortest text that reads back as the same float, always with a '.' or an
// exponent (so Python and PyTorch take it as a float).
std::string num(float v);
std::string py_string(const std::string& s);                 // "..." with \ and " escaped
std::string py_list(const std::vector<std::string>& labels); // ["a", "b"]
std::string num_list(const std::vector<float>& v);           // [0.5, 1.0]
// A line of NumPy in PyTorch's spelling: np.array -> torch.tensor, axis= -> dim=,
// softmax(x) -> torch.softmax(x, dim=-1), and so on.
std::string to_torch(std::string s);

// Every program is written once, in NumPy's spelling, through Py, which turns each
// line into PyTorch's when asked. The matrices, labels and drawn numbers are
// written as data. The PyTorch programs compute in float64
// (torch.set_default_dtype), like NumPy.
class Py {
 public:
  explicit Py(CodeLang lang) : torch_(lang == CodeLang::torch) {}
  bool torch() const { return torch_; }
  // A line of code in NumPy's spelling.
  void operator()(const std::string& line) { body_ += (torch_ ? to_torch(line) : line) + "\n"; }
  void gap() { body_ += "\n"; }
  // Lines of code, one per line of `text` (an empty line stays empty).
  void block(const std::string& text) {
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      const std::string line = text.substr(pos, nl - pos);
      if (line.empty()) gap();
      else (*this)(line);
      pos = nl + 1;
    }
  }
  void comment(const std::string& text) { body_ += "# " + text + "\n"; }
  void import(const std::string& module) { imports_.insert(module); }
  // name = np.array([[...], ...]), one row a line, after an optional comment.
  void mat(const std::string& name, const Mat& m, const std::string& note = "") {
    if (!note.empty()) comment(note);
    const std::string open = name + " = " + (torch_ ? "torch.tensor([" : "np.array([");
    std::string s = open;
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      std::vector<float> row(m.row(r).data(), m.row(r).data() + m.cols());
      s += (r ? ",\n" + std::string(open.size(), ' ') : "") + num_list(row);
    }
    body_ += s + "])\n";
  }
  void value(const std::string& name, const std::string& v, const std::string& note = "") {
    body_ += name + " = " + v + (note.empty() ? "" : "  # " + note) + "\n";
  }
  // Prints output `name` (the demo's name for it), computed by `expr`.
  void show(const std::string& name, const std::string& expr = "") {
    const std::string line = "show(\"" + name + "\", " + (expr.empty() ? name : expr) + ")";
    shows_ += (torch_ ? to_torch(line) : line) + "\n";
  }
  void show_columns() { columns_ = true; }

  // The whole program: header, imports, helpers, the body, then the shows.
  std::string program(const std::string& title, const std::string& what) const;

 private:
  bool torch_;
  bool columns_ = false;
  std::string body_, shows_;
  std::set<std::string> imports_;
};

// "what: a, b" (just `what` without labels).
std::string rows_note(const std::string& what, const std::vector<std::string>& labels);
// Input matrix `name`, which the demo's specs require.
const Mat& in_mat(const DemoInputs& in, const char* name);
// def unit(a): the guarded cosine the lab uses (a zero row has no direction: its cosines are 0).
void unit_rows_def(Py& P);

}  // namespace attn::demo_impl
