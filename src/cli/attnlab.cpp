// attnlab: the command-line face of the core.
//
//   attnlab eval [--compact] [FILE|-]   evaluate one JSON request (docs/eval.md)
//   attnlab version                     version and the SIMD instruction sets in use
//   attnlab --help                      usage
//
// Exit status: 0 success, 2 invalid request or usage (one line on stderr),
// 1 when the response cannot be written.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "base/simd_info.h"
#include "cli/eval.h"

#ifndef LAB_VERSION
#define LAB_VERSION "0.1"
#endif

namespace {

const char* kUsage =
    "usage: attnlab <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  eval [--compact] [FILE|-]   evaluate a JSON request (attention, self_attention,\n"
    "                              positional, rnn) read from FILE or standard input,\n"
    "                              and print the JSON response; see docs/eval.md\n"
    "  version                     print the version and the SIMD instruction sets in use\n"
    "  help, --help, -h            print this help\n"
    "\n"
    "exit status: 0 success; 2 invalid request or usage, with one line on stderr\n"
    "naming the field and what was expected.\n";

enum class ReadResult { ok, error, too_large };

// Reads all of `f` into *out, but never more than `limit` bytes: it stops as soon
// as the input is known to be larger (`attnlab eval - < /dev/zero` ends at once).
ReadResult read_all(std::FILE* f, std::size_t limit, std::string* out) {
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (n > limit - out->size()) return ReadResult::too_large;
    out->append(buf, n);
  }
  return std::ferror(f) ? ReadResult::error : ReadResult::ok;
}

// One line for a read that did not give the request; true when there was one.
bool read_failed(ReadResult r, const char* what, std::size_t limit) {
  if (r == ReadResult::error) std::fprintf(stderr, "attnlab eval: cannot read %s\n", what);
  if (r == ReadResult::too_large)
    std::fprintf(stderr, "attnlab eval: %s holds more than %zu bytes, the limit for a request (reading stopped there)\n",
                 what, limit);
  return r != ReadResult::ok;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "attnlab: %s (see attnlab --help)\n", message.c_str());
  return 2;
}

int run_eval(int argc, char** argv) {
  attn::EvalOptions options;
  const char* path = nullptr;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--compact") {
      options.pretty = false;
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage_error("eval: unknown option " + std::string(arg));
    } else if (path) {
      return usage_error("eval: expected one FILE, got a second one: " + std::string(arg));
    } else {
      path = argv[i];
    }
  }

  std::string text;
  const std::size_t limit = options.limits.max_bytes;
  if (!path || std::string_view(path) == "-") {
    if (read_failed(read_all(stdin, limit, &text), "standard input", limit)) return 2;
  } else {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) {
      std::fprintf(stderr, "attnlab eval: cannot open %s: %s\n", path, std::strerror(errno));
      return 2;
    }
    const ReadResult r = read_all(f, limit, &text);
    std::fclose(f);
    if (read_failed(r, path, limit)) return 2;
  }

  const attn::EvalResult result = attn::eval_request(text, options);
  if (!result.ok) {
    std::fprintf(stderr, "attnlab eval: %s\n", result.error_line().c_str());
    return result.exit_status;
  }
  std::fwrite(result.response.data(), 1, result.response.size(), stdout);
  if (!options.pretty) std::fputc('\n', stdout);
  if (std::fflush(stdout) != 0) {
    std::fprintf(stderr, "attnlab eval: cannot write the response\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string_view command = argv[1];
  if (command == "eval") return run_eval(argc, argv);
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "version" || command == "--version") {
    std::printf("attnlab %s (Eigen SIMD: %s)\n", LAB_VERSION, attn::eigen_simd_in_use());
    return 0;
  }
  return usage_error("unknown command \"" + std::string(command) + "\"");
}
