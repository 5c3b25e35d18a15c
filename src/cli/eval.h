// eval.h: `attnlab eval` -- one JSON request in, one JSON response out.
//
// A request names a "kind" (attention, self_attention, positional, rnn,
// transformer_block, decoder) and gives its inputs as JSON (matrices are arrays
// of rows, vectors arrays of numbers); the response holds every intermediate a
// learner may want to check by hand, and, when the request carries
// "grad_output", the gradient of sum(grad_output * output) with respect to
// every matrix and vector input ("decoder": given "targets", the mean
// cross-entropy and the gradient of it with respect to every weight).
// The format, with worked examples, is docs/eval.md (the examples are
// docs/examples/*.json and are run by tests/cli/test_eval.cpp).
//
// Pure: no I/O. The CLI (src/cli/attnlab.cpp) reads the file, calls
// eval_request, and prints either the response (exit status 0) or
// error_line() on stderr (exit status 2).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

// Limits that refuse absurd requests with a clear message instead of running
// out of memory or time.
struct EvalLimits {
  std::size_t max_bytes = 32u << 20;          // request text (32 MiB)
  long long max_rows = 4096;                  // rows of any input or output matrix
  long long max_elements = 16ll << 20;        // elements of any matrix (16 Mi)
  long long max_work = 1ll << 30;             // multiply-adds of the main products
  long long max_response_numbers = 16ll << 20;  // numbers in the whole response
};

struct EvalOptions {
  bool pretty = true;  // indented response (false: one line)
  EvalLimits limits;
};

// What was wrong with the request. `field` is a path into the request such as
// "k", "q[1][0]", "reverse.w_ih" or "head_score[0].w"; empty when the problem is
// not one field's (invalid JSON, a request that is not an object).
struct EvalError {
  std::string field;
  std::string message;  // what was expected, and what was found
};

struct EvalResult {
  bool ok = false;
  std::string response;  // the response JSON when ok
  EvalError error;       // when !ok
  int exit_status = 2;   // 0 when ok; 2 for any invalid request

  // The error as one line, e.g. `field "k": expected 3 columns (same as q), got 2`
  // (the CLI prefixes "attnlab eval: "). Empty when ok.
  std::string error_line() const;
};

// Validates and evaluates one request. Never throws; never prints.
EvalResult eval_request(std::string_view json_text, const EvalOptions& options = {});

}  // namespace attn
