// exercise.cpp: live goal checks, stored solutions and their parsers.
// Sections: 1 text helpers, 2 resolving matrix cells, 3 live checks,
// 4 solutions, 5 parsing.
#include "course/exercise.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "base/number_text.h"
#include "base/text.h"
#include "course/demo_api.h"

namespace attn {

// ---------------------------------------------------------------- 1 text helpers
namespace {

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// The first `what` in `s` at or after `from` that is not inside a double-quoted
// label ("<eos>" may hold <, >, commas, brackets, ';' and '='); npos if none.
size_t find_unquoted(std::string_view s, std::string_view what, size_t from = 0) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    else if (!quoted && i >= from && s.substr(i, what.size()) == what) return i;
  }
  return std::string_view::npos;
}

// A row or column as written: an index, a bare label, or a quoted label "..."
// (non-empty, no quote inside).
bool valid_part(std::string_view part) {
  if (part.empty()) return false;
  if (part.front() != '"') return part.find('"') == std::string_view::npos;
  return part.size() >= 3 && part.back() == '"' && part.substr(1, part.size() - 2).find('"') == std::string_view::npos;
}

// Splits "name[a, b]" into name and the parts inside the brackets (0, 1 or 2),
// kept as written (a quoted label keeps its quotes). Returns false when the
// brackets or quotes are malformed.
bool split_ref(std::string_view s, std::string& name, std::vector<std::string>& parts) {
  s = trim(s);
  parts.clear();
  const size_t open = find_unquoted(s, "[");
  if (open == std::string_view::npos) {
    name = std::string(s);
    return valid_name(name);
  }
  if (s.back() != ']') return false;
  name = std::string(trim(s.substr(0, open)));
  if (!valid_name(name)) return false;
  std::string_view inside = s.substr(open + 1, s.size() - open - 2);
  if (find_unquoted(inside, "[") != std::string_view::npos || find_unquoted(inside, "]") != std::string_view::npos)
    return false;
  size_t pos = 0;
  while (pos <= inside.size()) {
    size_t comma = find_unquoted(inside, ",", pos);
    if (comma == std::string_view::npos) comma = inside.size();
    const std::string_view part = trim(inside.substr(pos, comma - pos));
    if (!valid_part(part)) return false;
    parts.emplace_back(part);
    pos = comma + 1;
  }
  return !parts.empty() && parts.size() <= 2;
}

// ---------------------------------------------------------------- 2 resolving cells
const Mat* find_matrix(const std::string& name, const DemoInputs& in, const DemoOutputs& out) {
  if (auto it = in.mats.find(name); it != in.mats.end()) return &it->second;
  if (auto it = out.mats.find(name); it != out.mats.end()) return &it->second;
  return nullptr;
}

// Row and column labels of the first panel that shows `name` with labels.
void labels_of(const std::string& name, const DemoOutputs& out, std::vector<std::string>& rows,
               std::vector<std::string>& cols) {
  rows.clear();
  cols.clear();
  for (const Panel& p : out.panels) {
    if (p.source == name) {
      const bool line = p.kind == Panel::Kind::line_plot;
      if (rows.empty()) rows = line ? p.series_labels : p.row_labels;
      if (cols.empty() && !line) cols = p.col_labels;
    } else if (p.source2 == name && rows.empty()) {
      rows = p.series_labels;
    }
  }
}

// A 0-based index, or a label found in `labels`; -1 when neither fits in [0, size),
// and kNotYet when it names a place past the matrix's current end (a curve that
// has not grown that far). A quoted label ("<eos>", or "3" for a label that looks
// like an index) is always a label.
constexpr Eigen::Index kNotYet = -2;
Eigen::Index resolve(const std::string& what, const std::vector<std::string>& labels, Eigen::Index size) {
  const bool quoted = what.size() >= 2 && what.front() == '"' && what.back() == '"';
  bool digits = !what.empty() && !quoted && what.size() <= 6;
  for (char c : what) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) {
    const long v = std::strtol(what.c_str(), nullptr, 10);
    return v < size ? Eigen::Index(v) : kNotYet;
  }
  const std::string label = quoted ? what.substr(1, what.size() - 2) : what;
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == label) return Eigen::Index(i) < size ? Eigen::Index(i) : kNotYet;
  return -1;
}

// False with `why` when the cell cannot be named; false with *pending set when a
// live experiment has not measured it yet.
bool operand_value(const Operand& o, const DemoInputs& in, const DemoOutputs& out, float& value, std::string& why,
                   bool* pending) {
  if (o.is_number) {
    value = o.number;
    return true;
  }
  const Mat* m = find_matrix(o.matrix, in, out);
  if (!m) {
    why = "no matrix '" + o.matrix + "' in this demo";
    return false;
  }
  if (o.row.empty()) {
    if (m->rows() != 1 || m->cols() != 1) {
      why = "'" + o.matrix + "' is not 1 x 1: write " + o.matrix + "[row, col]";
      return false;
    }
    value = (*m)(0, 0);
    return true;
  }
  std::vector<std::string> rows, cols;
  labels_of(o.matrix, out, rows, cols);
  const Eigen::Index r = resolve(o.row, rows, m->rows()), c = resolve(o.col, cols, m->cols());
  if (out.growing && r != -1 && c != -1 && (r == kNotYet || c == kNotYet)) {
    *pending = true;
    return false;
  }
  if (r < 0) {
    why = "'" + o.matrix + "' has no row '" + o.row + "'";
    return false;
  }
  if (c < 0) {
    why = "'" + o.matrix + "' has no column '" + o.col + "'";
    return false;
  }
  value = (*m)(r, c);
  return true;
}

}  // namespace

// ---------------------------------------------------------------- 3 live checks
const char* compare_op_text(CompareOp op) {
  switch (op) {
    case CompareOp::less: return "<";
    case CompareOp::less_equal: return "<=";
    case CompareOp::greater: return ">";
    case CompareOp::greater_equal: return ">=";
  }
  return "?";
}

Exercise exercise_for(const Exercise& ex, const std::string& lang) {
  Exercise out = ex;
  out.local.clear();
  const auto it = ex.local.find(lang);
  if (it == ex.local.end()) return out;
  if (!it->second.check_text.empty()) {
    out.check = it->second.check;
    out.check_text = it->second.check_text;
  }
  if (!it->second.solution_text.empty()) {
    out.solution = it->second.solution;
    out.solution_text = it->second.solution_text;
  }
  return out;
}

ExerciseStatus check_exercise(const Exercise& ex, const DemoInputs& inputs, const DemoOutputs& outputs) {
  ExerciseStatus st;
  if (!outputs.error.empty()) {
    st.error = outputs.error;
    return st;
  }
  bool all = !ex.check.empty();
  for (const Condition& c : ex.check) {
    ConditionStatus cs;
    cs.text = c.text;
    std::string why;
    if (!operand_value(c.lhs, inputs, outputs, cs.lhs, why, &cs.pending) ||
        !operand_value(c.rhs, inputs, outputs, cs.rhs, why, &cs.pending)) {
      if (st.error.empty() && !cs.pending) st.error = why;
      all = false;
      st.conditions.push_back(cs);
      continue;
    }
    switch (c.op) {
      case CompareOp::less: cs.met = cs.lhs < cs.rhs; break;
      case CompareOp::less_equal: cs.met = cs.lhs <= cs.rhs; break;
      case CompareOp::greater: cs.met = cs.lhs > cs.rhs; break;
      case CompareOp::greater_equal: cs.met = cs.lhs >= cs.rhs; break;
    }
    all = all && cs.met;
    st.conditions.push_back(cs);
  }
  st.met = all && st.error.empty();
  return st;
}

bool exercise_met(const Exercise& ex, const DemoInputs& inputs, const DemoOutputs& outputs) {
  return check_exercise(ex, inputs, outputs).met;
}

// ---------------------------------------------------------------- 4 solutions
bool apply_solution(const Exercise& ex, const DemoOutputs& outputs, DemoInputs& inputs, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  for (const Assignment& a : ex.solution) {
    if (a.kind == Assignment::Kind::setting) {
      inputs.settings[a.target] = a.text;
      continue;
    }
    auto it = inputs.mats.find(a.target);
    if (it == inputs.mats.end()) return fail("'" + a.text + "': no editable matrix '" + a.target + "'");
    Mat& m = it->second;
    std::vector<std::string> rows, cols;
    labels_of(a.target, outputs, rows, cols);
    switch (a.kind) {
      case Assignment::Kind::matrix:
        if (a.value.rows() != m.rows() || a.value.cols() != m.cols())
          return fail("'" + a.text + "': '" + a.target + "' is " + std::to_string(m.rows()) + " x " +
                      std::to_string(m.cols()));
        m = a.value;
        break;
      case Assignment::Kind::row: {
        const Eigen::Index r = resolve(a.row, rows, m.rows());
        if (r < 0) return fail("'" + a.text + "': '" + a.target + "' has no row '" + a.row + "'");
        if (a.value.rows() != 1 || a.value.cols() != m.cols())
          return fail("'" + a.text + "': a row of '" + a.target + "' has " + std::to_string(m.cols()) + " numbers");
        m.row(r) = a.value.row(0);
        break;
      }
      case Assignment::Kind::cell: {
        const Eigen::Index r = resolve(a.row, rows, m.rows()), c = resolve(a.col, cols, m.cols());
        if (r < 0) return fail("'" + a.text + "': '" + a.target + "' has no row '" + a.row + "'");
        if (c < 0) return fail("'" + a.text + "': '" + a.target + "' has no column '" + a.col + "'");
        m(r, c) = a.value(0, 0);
        break;
      }
      case Assignment::Kind::setting: break;
    }
  }
  return true;
}

// ---------------------------------------------------------------- 5 parsing
namespace {

bool parse_operand(std::string_view s, Operand& o, std::string& why) {
  s = trim(s);
  o = Operand{};
  o.text = std::string(s);
  if (s.empty()) {
    why = "missing a number or a matrix cell";
    return false;
  }
  switch (parse_float_text(s, &o.number)) {
    case NumberText::ok: return true;
    case NumberText::beyond_float: why = "'" + o.text + "' is " + kBeyondFloat; return false;
    case NumberText::not_a_number: break;
  }
  o.is_number = false;
  std::vector<std::string> parts;
  if (!split_ref(s, o.matrix, parts) || parts.size() == 1) {
    why = "'" + o.text + "' is neither a number nor a cell like weights[0, 2]";
    return false;
  }
  if (parts.size() == 2) {
    o.row = parts[0];
    o.col = parts[1];
  }
  return true;
}

}  // namespace

bool parse_check(std::string_view text, std::vector<Condition>& out, std::string& why) {
  out.clear();
  text = trim(text);
  if (text.empty()) {
    why = "empty check";
    return false;
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t next = find_unquoted(text, " and ", pos);
    if (next == std::string_view::npos) next = text.size();
    const std::string_view part = trim(text.substr(pos, next - pos));
    pos = next + 5;
    Condition c;
    c.text = std::string(part);
    // The first comparison operator outside a quoted label splits the condition.
    size_t at = std::string_view::npos, len = 0;
    bool quoted = false;
    for (size_t i = 0; i < part.size(); ++i) {
      if (part[i] == '"') quoted = !quoted;
      if (!quoted && (part[i] == '<' || part[i] == '>')) {
        at = i;
        len = (i + 1 < part.size() && part[i + 1] == '=') ? 2 : 1;
        c.op = part[i] == '<' ? (len == 2 ? CompareOp::less_equal : CompareOp::less)
                              : (len == 2 ? CompareOp::greater_equal : CompareOp::greater);
        break;
      }
    }
    if (at == std::string_view::npos) {
      why = "'" + c.text + "' needs a comparison: <, <=, > or >=";
      return false;
    }
    if (!parse_operand(part.substr(0, at), c.lhs, why) || !parse_operand(part.substr(at + len), c.rhs, why)) return false;
    if (c.lhs.is_number && c.rhs.is_number) {
      why = "'" + c.text + "' compares two numbers: one side must be a matrix cell";
      return false;
    }
    out.push_back(std::move(c));
  }
  return true;
}

bool parse_solution(std::string_view text, std::vector<Assignment>& out, std::string& why) {
  out.clear();
  text = trim(text);
  if (text.empty()) {
    why = "empty solution";
    return false;
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t next = find_unquoted(text, ";", pos);
    if (next == std::string_view::npos) next = text.size();
    const std::string_view part = trim(text.substr(pos, next - pos));
    pos = next + 1;
    if (part.empty()) continue;  // a trailing ';'
    Assignment a;
    a.text = std::string(part);
    const size_t eq = find_unquoted(part, "=");
    if (eq == std::string_view::npos) {
      why = "'" + a.text + "' needs '=': name = value";
      return false;
    }
    const std::string_view lhs = trim(part.substr(0, eq)), rhs = trim(part.substr(eq + 1));
    std::vector<std::string> parts;
    if (!split_ref(lhs, a.target, parts)) {
      why = "'" + std::string(lhs) + "' is not a name, name[row] or name[row, col]";
      return false;
    }
    if (rhs.empty()) {
      why = "'" + a.text + "' has no value after '='";
      return false;
    }
    if (parts.size() == 2) {
      a.kind = Assignment::Kind::cell;
      a.row = parts[0];
      a.col = parts[1];
      a.value.resize(1, 1);
      float v = 0;
      if (parse_float_text(rhs, &v) != NumberText::ok) {
        why = "'" + a.text + "': a cell takes one number";
        return false;
      }
      a.value(0, 0) = v;
    } else if (parts.size() == 1 && rhs.front() != '[') {
      why = "'" + a.text + "': a row takes a list like [0.5, 1]";
      return false;
    } else if (parts.size() == 1 || rhs.front() == '[') {
      a.kind = parts.size() == 1 ? Assignment::Kind::row : Assignment::Kind::matrix;
      if (parts.size() == 1) a.row = parts[0];
      std::string matrix_why;
      if (!parse_matrix_value(rhs, a.value, matrix_why)) {
        why = "'" + a.text + "': " + matrix_why;
        return false;
      }
      if (a.kind == Assignment::Kind::row && a.value.rows() != 1) {
        why = "'" + a.text + "': a row takes one list like [0.5, 1]";
        return false;
      }
    } else {
      a.kind = Assignment::Kind::setting;
      a.text = std::string(rhs);
    }
    out.push_back(std::move(a));
  }
  if (out.empty()) {
    why = "empty solution";
    return false;
  }
  return true;
}

}  // namespace attn
