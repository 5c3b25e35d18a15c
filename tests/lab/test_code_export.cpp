// The Code view's programs (demos/code_writer.h, one program beside each demo) run: for every hand-set demo step of
// every lesson -- at its starting values, at every option of its choices and both
// ends of its sliders (two deep, so a choice that appears under another one is
// reached), and at every exercise's stored solution -- the NumPy program is
// written out, run by Debian's python3 with python3-numpy, and every number it
// prints is set against the demo's own output of that name: within 1e-4 of it,
// relatively (float32 against float64), plus 1e-6 of the matrix's largest entry
// (at least 1) for entries that are ~0. Every matrix a panel draws must be printed.
// The PyTorch programs run the same way where `python3 -c "import torch"` works,
// and are skipped with a note otherwise. Native only (it starts processes).
//
// The trained translator and induction model, trained briefly, export their weights
// (lab/weights_export.h) and a NumPy program that must reproduce the prediction
// the page shows on the example it shows.
//
// Sections: 1 the cases, 2 running the programs, 3 comparing, 4 the tests.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "base/json.h"
#include "course/exercise.h"
#include "course/lesson.h"
#include "experiments/experiments.h"
#include "experiments/weights_export.h"
#include "lab/catalog.h"
#include "lab/embedded.h"

#ifndef LAB_PYTHON
#define LAB_PYTHON "python3"
#endif

using namespace attn;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- 1 the cases
struct Case {
  std::string where;  // lesson file, step and variant
  std::string demo;
  DemoInputs in;
  DemoOutputs out;
};

std::string settings_key(const DemoInputs& in) {
  std::string k;
  for (const auto& [name, v] : in.settings) k += name + "=" + v + ";";
  return k;
}

std::string slider_value(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", double(v));
  return buf;
}

std::vector<Case> code_cases() {
  std::vector<Case> cases;
  static const LessonSet lessons = load_embedded_lessons();
  REQUIRE(lessons.errors.empty());
  for (const Lesson& l : lessons.lessons)
    for (const LessonStep& any : l.steps)
    for (const std::string& lang : step_languages(any)) {
      const LessonStep s = step_in_language(any, lang);
      if (s.demo.empty() || !demo_has_code(s.demo)) continue;
      const std::string at = l.file + ":" + std::to_string(s.line) + " (" + s.id + ", " + s.demo +
                             (lang == "en" ? "" : ", " + lang) + ")";
      const DemoInputs base = demo_defaults(s, lang);
      std::set<std::string> seen;
      // Breadth first, two levels of settings.
      std::vector<std::pair<DemoInputs, std::string>> level = {{base, "defaults"}};
      for (int depth = 0; depth < 3 && !level.empty(); ++depth) {
        std::vector<std::pair<DemoInputs, std::string>> next;
        for (const auto& entry : level) {  // (no structured binding: clang refuses one in a doctest macro)
          const DemoInputs& in = entry.first;
          const std::string& label = entry.second;
          if (!seen.insert(settings_key(in)).second) continue;
          const DemoOutputs out = run_demo(s.demo, in);
          REQUIRE_MESSAGE(out.error.empty(), at << " " << label << ": " << out.error);
          cases.push_back({at + " " + label, s.demo, in, out});
          if (depth == 2) continue;
          for (const Panel& p : out.panels) {
            std::vector<std::string> values;
            if (p.kind == Panel::Kind::choice) values = p.options;
            if (p.kind == Panel::Kind::slider) values = {slider_value(p.min), slider_value(p.max)};
            for (const auto& v : values) {
              DemoInputs changed = in;
              changed.settings[p.setting] = v;
              next.push_back({changed, label + ", " + p.setting + "=" + v});
            }
          }
        }
        level = std::move(next);
      }
      const DemoOutputs start = run_demo(s.demo, base);
      for (const Exercise& ex : s.exercises) {
        DemoInputs solved = base;
        if (!apply_solution(ex, start, solved)) continue;
        const DemoOutputs out = run_demo(s.demo, solved);
        if (out.error.empty()) cases.push_back({at + " solution of " + ex.id, s.demo, solved, out});
      }
    }
  return cases;
}

// ---------------------------------------------------------------- 2 running the programs
std::string run_command(const std::string& command, int* status) {
  std::string text;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    *status = -1;
    return text;
  }
  char buf[65536];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, got);
  *status = pclose(pipe);
  return text;
}

bool python_has(const std::string& module) {
  int status = 0;
  run_command(std::string(LAB_PYTHON) + " -c \"import " + module + "\" 2>/dev/null", &status);
  return status == 0;
}

// A fresh folder for the programs, removed afterwards; with $LAB_CODE_KEEP set, a
// folder of that name inside it that stays (to read the programs).
struct Folder {
  fs::path path;
  bool keep = false;
  explicit Folder(const std::string& name) {
    const char* kept = std::getenv("LAB_CODE_KEEP");
    keep = kept && *kept;
    path = keep ? fs::path(kept) / name
                : fs::temp_directory_path() / (name + "_" + std::to_string(std::rand()) + "_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~Folder() {
    std::error_code ec;
    if (!keep) fs::remove_all(path, ec);
  }
};

std::string file_name(size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%04zu.py", i);
  return buf;
}

// Every case's program in `lang`, run in one interpreter: file name -> printed lines.
std::map<std::string, std::vector<std::string>> run_all(const std::vector<Case>& cases, CodeLang lang,
                                                        std::map<std::string, std::string>* failures) {
  Folder dir(lang == CodeLang::torch ? "attnlab_torch" : "attnlab_numpy");
  for (size_t i = 0; i < cases.size(); ++i) {
    std::ofstream f(dir.path / file_name(i));
    f << demo_code(cases[i].demo, cases[i].in, lang, cases[i].where);
  }
  int status = 0;
  const std::string text = run_command(std::string(LAB_PYTHON) + " tests/lab/run_programs.py " + dir.path.string() + " 2>&1", &status);
  REQUIRE_MESSAGE(status == 0, "the runner failed: " << text.substr(0, 2000));
  std::map<std::string, std::vector<std::string>> lines;
  std::istringstream read(text);
  std::string line, current;
  while (std::getline(read, line)) {
    if (line.rfind("== ", 0) == 0) {
      current = line.substr(3);
      lines[current];
    } else if (line.rfind("!! ", 0) == 0) {
      const size_t colon = line.find(':');
      (*failures)[line.substr(3, colon - 3)] = line.substr(colon + 1, 1500);
    } else if (!current.empty()) {
      lines[current].push_back(line);
    }
  }
  return lines;
}

// ---------------------------------------------------------------- 3 comparing
// Every printed output against the demo's; "" or the first problem.
std::string compare(const Case& c, const std::vector<std::string>& printed) {
  std::set<std::string> names;
  for (const std::string& line : printed) {
    const json::ParseResult r = json::parse(line);
    if (!r.ok) return "not a JSON line: " + line.substr(0, 200);
    const json::Value* name = r.value.find("name");
    const json::Value* value = r.value.find("value");
    if (!name || !value) return "a line without name or value: " + line.substr(0, 200);
    const std::string n = name->as_string();
    names.insert(n);
    auto it = c.out.mats.find(n);
    if (it == c.out.mats.end()) return "prints '" + n + "', which the demo does not output";
    const Mat& want = it->second;
    std::vector<Eigen::Index> columns;
    if (const json::Value* cols = r.value.find("columns"))
      for (const json::Value& v : cols->items()) columns.push_back(Eigen::Index(v.as_number()));
    else
      for (Eigen::Index j = 0; j < want.cols(); ++j) columns.push_back(j);
    const auto& rows = value->items();
    if (Eigen::Index(rows.size()) != want.rows())
      return "'" + n + "' has " + std::to_string(rows.size()) + " rows, the demo's " + std::to_string(want.rows());
    const double scale = std::max(1.0, double(want.cwiseAbs().maxCoeff()));
    for (Eigen::Index i = 0; i < want.rows(); ++i) {
      const auto& row = rows[size_t(i)].items();
      if (row.size() != columns.size())
        return "'" + n + "' row " + std::to_string(i) + " has " + std::to_string(row.size()) + " numbers, wanted " +
               std::to_string(columns.size());
      for (size_t k = 0; k < columns.size(); ++k) {
        const Eigen::Index j = columns[k];
        if (j < 0 || j >= want.cols()) return "'" + n + "' names column " + std::to_string(j);
        const double got = row[k].as_number(), expect = want(i, j);
        if (!(std::abs(got - expect) <= 1e-4 * std::abs(expect) + 1e-6 * scale)) {
          std::ostringstream msg;
          msg.precision(9);
          msg << "'" << n << "'[" << i << ", " << j << "]: the program prints " << got << ", the demo shows " << expect;
          return msg.str();
        }
      }
    }
  }
  // Every matrix a panel draws from the outputs is printed.
  for (const Panel& p : c.out.panels)
    for (const std::string* s : {&p.source, &p.source2, &p.x_source})
      if (!s->empty() && !c.in.mats.count(*s) && c.out.mats.count(*s) && !names.count(*s))
        return "panel '" + p.id + "' shows '" + *s + "', which the program does not print";
  return "";
}

void check_language(const std::vector<Case>& cases, CodeLang lang) {
  std::map<std::string, std::string> failures;
  const auto printed = run_all(cases, lang, &failures);
  int passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string file = file_name(i);
    CAPTURE(cases[i].where);
    if (failures.count(file)) {
      FAIL_CHECK("the program failed: " << failures.at(file));
      continue;
    }
    auto it = printed.find(file);
    if (it == printed.end()) {
      FAIL_CHECK("the program did not run");
      continue;
    }
    const std::string why = compare(cases[i], it->second);
    CHECK_MESSAGE(why.empty(), why);
    passed += why.empty();
  }
  const std::string name = lang == CodeLang::torch ? "PyTorch" : "NumPy";
  MESSAGE(name << ": " << passed << " of " << cases.size() << " programs match their step");
}

}  // namespace

// ---------------------------------------------------------------- 4 the tests
TEST_CASE("code export: every hand-set demo of the registry has a program, the experiments none") {
  int with_code = 0;
  for (const std::string& demo : demo_names()) {
    const bool trained = demo.rfind("train_", 0) == 0 || demo == "timing";
    CHECK_MESSAGE(demo_has_code(demo) == !trained, demo);
    with_code += demo_has_code(demo);
  }
  CHECK(with_code >= 20);
}

TEST_CASE("code export: a program uses the lesson's names, no library of ours, and both languages") {
  static const LessonSet lessons = load_embedded_lessons();
  const LessonStep* step = nullptr;
  for (const Lesson& l : lessons.lessons)
    for (const LessonStep& s : l.steps)
      if (!step && s.demo == "qkv_basic") step = &s;
  REQUIRE(step);
  DemoInputs in = demo_defaults(*step, "en");
  in.mats["q"](0, 1) = 0.73f;  // the learner's value, written as typed
  const std::string np = demo_code("qkv_basic", in, CodeLang::numpy, "First look");
  const std::string pt = demo_code("qkv_basic", in, CodeLang::torch);
  CHECK(np.find("import numpy as np") != std::string::npos);
  CHECK(np.find("Q = np.array([[") != std::string::npos);
  CHECK(np.find("0.73") != std::string::npos);
  CHECK(np.find("0.730000") == std::string::npos);
  CHECK(np.find("# Attention Lab: First look") == 0);
  CHECK(pt.find("import torch") != std::string::npos);
  CHECK(pt.find("torch.softmax(scores, dim=-1)") != std::string::npos);
  CHECK(pt.find("np.") == std::string::npos);
  for (const std::string& code : {np, pt}) CHECK(code.find("attn") == std::string::npos);
  // The experiments and inputs that do not compute have none.
  CHECK(demo_code("train_translation", in, CodeLang::numpy).empty());
  in.mats["q"](0, 0) = NAN;
  CHECK(demo_code("qkv_basic", in, CodeLang::numpy).empty());
}

TEST_CASE("code export: the NumPy program of every hand-set step reproduces its numbers") {
  REQUIRE_MESSAGE(python_has("numpy"), LAB_PYTHON << " has no numpy: scripts/lab set-up installs python3-numpy");
  const std::vector<Case> cases = code_cases();
  REQUIRE(cases.size() >= 38);
  check_language(cases, CodeLang::numpy);
  // One program run on its own, as a learner would, prints the same.
  Folder dir("attnlab_one");
  const fs::path file = dir.path / "step.py";
  std::ofstream(file) << demo_code(cases[0].demo, cases[0].in, CodeLang::numpy);
  int status = 0;
  const std::string text = run_command(std::string(LAB_PYTHON) + " " + file.string() + " 2>&1", &status);
  CHECK(status == 0);
  std::vector<std::string> lines;
  std::istringstream read(text);
  for (std::string line; std::getline(read, line);) lines.push_back(line);
  CHECK(compare(cases[0], lines) == "");
}

TEST_CASE("code export: the PyTorch program of every hand-set step reproduces its numbers") {
  if (!python_has("torch")) {
    MESSAGE("skipped: " << LAB_PYTHON << " cannot import torch (Debian: apt-get install python3-torch)");
    return;
  }
  check_language(code_cases(), CodeLang::torch);
}

TEST_CASE("trained weights: the exported translator and induction model reproduce the page's prediction") {
  REQUIRE_MESSAGE(python_has("numpy"), LAB_PYTHON << " has no numpy: scripts/lab set-up installs python3-numpy");
  for (const char* demo : {"train_translation", "train_induction"}) {
    CAPTURE(demo);
    DemoInputs in;
    for (const auto& [name, v] : demo_setting_defaults(demo))
      if (!v.empty()) in.settings[name] = v;
    in.settings["steps"] = "60";
    const std::unique_ptr<Experiment> ex = make_experiment(demo, in);
    REQUIRE(ex);
    TrainedExport out;
    CHECK_FALSE(export_trained(*ex, &out));  // nothing built yet
    ex->prepare();
    while (!ex->done()) ex->advance(50.0);
    REQUIRE(export_trained(*ex, &out));
    const json::ParseResult saved = json::parse(out.json);
    REQUIRE(saved.ok);
    CHECK(saved.value.find("format")->as_string() == "attention-lab-weights");
    const json::Value& shown = *saved.value.find("shown");
    Folder dir("attnlab_weights");
    std::ofstream(dir.path / "weights.json") << out.json;
    std::ofstream(dir.path / "model.py") << out.program;
    int status = 0;
    const std::string text = run_command(std::string(LAB_PYTHON) + " " + (dir.path / "model.py").string() + " " +
                                             (dir.path / "weights.json").string() + " 2>&1",
                                         &status);
    REQUIRE_MESSAGE(status == 0, text.substr(0, 2000));
    std::map<std::string, json::Value> printed;
    std::istringstream read(text);
    for (std::string line; std::getline(read, line);) {
      const json::ParseResult r = json::parse(line);
      REQUIRE_MESSAGE(r.ok, line.substr(0, 200));
      printed[r.value.find("name")->as_string()] = *r.value.find("value");
    }
    // Exact token ids; the numbers within 1e-4 relatively (float32 against float64).
    const bool translation = std::string(demo) == "train_translation";
    const std::string ids = translation ? "decoded_ids" : "predictions";
    const std::string numbers = translation ? "alignment" : "logits";
    REQUIRE(printed.count(ids));
    REQUIRE(printed.count(numbers));
    const auto& got_ids = printed[ids].items()[0].items();
    const auto& want_ids = shown.find(ids)->items();
    REQUIRE(got_ids.size() == want_ids.size());
    for (size_t i = 0; i < got_ids.size(); ++i) CHECK(got_ids[i].as_number() == want_ids[i].as_number());
    const auto& got = printed[numbers].items();
    const auto& want = shown.find(numbers)->items();
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i].items().size() == want[i].items().size());
      for (size_t j = 0; j < got[i].items().size(); ++j) {
        const double a = got[i].items()[j].as_number(), b = want[i].items()[j].as_number();
        CHECK_MESSAGE(std::abs(a - b) <= 1e-4 * std::abs(b) + 1e-5, numbers << "[" << i << ", " << j << "]: " << a << " against " << b);
      }
    }
  }
}
