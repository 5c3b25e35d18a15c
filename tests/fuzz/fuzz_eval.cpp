// fuzz_eval: `attnlab eval` requests under small limits never crash, and every
// answer is either a response that parses as JSON or one error line.
#include "base/json.h"
#include "cli/eval.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attn::EvalOptions options;
  options.pretty = false;
  options.limits.max_bytes = 1 << 16;
  options.limits.max_rows = 64;
  options.limits.max_elements = 4096;
  options.limits.max_work = 1 << 20;
  options.limits.max_response_numbers = 1 << 16;
  const attn::EvalResult r = attn::eval_request(fuzz::text(data, size), options);
  if (r.ok) {
    fuzz::require(r.exit_status == 0, "a response has exit status 0");
    fuzz::require(attn::json::parse(r.response).ok, "a response is JSON", r.response);
  } else {
    const std::string line = r.error_line();
    fuzz::require(r.exit_status == 2 && !line.empty(), "an error has exit status 2 and a line");
    fuzz::require(line.find('\n') == std::string::npos, "an error is one line", line);
  }
  return 0;
}
