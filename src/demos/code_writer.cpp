// code_writer.cpp: the emitter of the hand-set demos' NumPy and PyTorch programs
// (code_writer.h); each program is beside its demo.
#include "demos/code_writer.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/text.h"

namespace attn::demo_impl {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Replaces `from` by `to`; a `from` that starts with a letter only where no name
// runs into it from the left ("np." but not "tnp.").
std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  const bool word = std::isalpha(static_cast<unsigned char>(from[0]));
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, from.size(), from) == 0 && (!word || i == 0 || !word_char(s[i - 1]))) {
      out += to;
      i += from.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

// softmax(x) -> torch.softmax(x, dim=-1), for every call (not the NumPy definition).
std::string torch_softmax(const std::string& s) {
  std::string out;
  size_t i = 0;
  const std::string call = "softmax(";
  while (i < s.size()) {
    const bool at_call = s.compare(i, call.size(), call) == 0 && (i == 0 || !word_char(s[i - 1]));
    if (!at_call) {
      out += s[i++];
      continue;
    }
    size_t j = i + call.size();
    int depth = 1;
    for (; j < s.size() && depth > 0; ++j) depth += s[j] == '(' ? 1 : s[j] == ')' ? -1 : 0;
    // s[i + call.size(), j - 1) is the argument; s[j - 1] its closing parenthesis.
    out += "torch.softmax(" + torch_softmax(s.substr(i + call.size(), j - 1 - i - call.size())) + ", dim=-1)";
    i = j;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- 1 the emitter
// The shortest text that reads back as the same float, always with a '.' or an
// exponent (so Python and PyTorch take it as a float).
std::string num(float v) {
  if (v == 0.0f) return "0.0";
  char buf[32];
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, double(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string py_list(const std::vector<std::string>& labels) {
  std::vector<std::string> quoted;
  for (const auto& l : labels) quoted.push_back(py_string(l));
  return "[" + join(quoted, ", ") + "]";
}

std::string num_list(const std::vector<float>& v) {
  std::vector<std::string> s;
  for (float x : v) s.push_back(num(x));
  return "[" + join(s, ", ") + "]";
}

std::string to_torch(std::string s) {
  static const char* const swaps[][2] = {
      {"np.asarray(", "torch.as_tensor("}, {"np.array(", "torch.tensor("}, {"np.concatenate(", "torch.cat("},
      {"np.clip(", "torch.clamp("},        {"np.", "torch."},              {"axis=", "dim="},
      {"keepdims=", "keepdim="},           {".copy()", ".clone()"}};
  for (const auto& sw : swaps) s = replace_all(s, sw[0], sw[1]);
  return torch_softmax(s);
}



std::string rows_note(const std::string& what, const std::vector<std::string>& labels) {
  return labels.empty() ? what : what + ": " + join(labels, ", ");
}

const Mat& in_mat(const DemoInputs& in, const char* name) { return in.mats.at(name); }

void unit_rows_def(Py& P) {
  P("def unit(a):");
  P("    \"\"\"Each row divided by its length (a zero row stays zero).\"\"\"");
  P("    return a / np.clip(np.sqrt((a * a).sum(axis=-1, keepdims=True)), 1e-30, None)");
  P.gap();
}

std::string Py::program(const std::string& title, const std::string& what) const {
  std::string s;
  if (!title.empty()) s += "# Attention Lab: " + title + "\n";
  s += "# " + what + "\n";
  s += torch_ ? "# PyTorch; the lab computes in float32, this program in float64.\n"
              : "# NumPy; the lab computes in float32, this program in float64.\n";
  s += "# Prints one JSON line per output the panels show: {\"name\": ..., \"value\": [[...], ...]}.\n";
  s += "import json\n";
  for (const auto& m : imports_) s += "import " + m + "\n";
  s += torch_ ? "import torch\n\ntorch.set_default_dtype(torch.float64)\n" : "import numpy as np\n";
  if (!torch_ && body_.find("softmax(") != std::string::npos)
    s += "\n\ndef softmax(s):\n"
         "    \"\"\"Softmax of each row; the row's largest score is taken off first, so exp cannot overflow.\"\"\"\n"
         "    e = np.exp(s - np.amax(s, axis=-1, keepdims=True))\n"
         "    return e / e.sum(axis=-1, keepdims=True)\n";
  const std::string as_list = torch_ ? "torch.as_tensor(value).tolist()" : "np.asarray(value).tolist()";
  if (columns_)
    s += "\n\ndef show(name, value, columns=None):\n"
         "    line = {\"name\": name, \"value\": " + as_list + "}\n"
         "    if columns is not None:\n"
         "        line[\"columns\"] = columns  # only these columns of the lab's output\n"
         "    print(json.dumps(line))\n";
  else
    s += "\n\ndef show(name, value):\n    print(json.dumps({\"name\": name, \"value\": " + as_list + "}))\n";
  return s + "\n\n" + body_ + "\n" + shows_;
}

}  // namespace attn::demo_impl
