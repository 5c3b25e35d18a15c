// eval.cpp: `attnlab eval`'s entry point: parse the request, find its kind,
// run it, collect the warnings and write the response. Each kind lives in a
// file of its own (eval_<kind>.cpp) and reads its fields through
// eval_fields.h; a new kind is a function there and a row in kKinds below.
#include "cli/eval.h"

#include <iterator>
#include <string>

#include "base/json.h"
#include "cli/eval_fields.h"

namespace attn {

using namespace eval_detail;

namespace {
struct Kind {
  const char* name;
  bool (*eval)(Fields& f, Value* out);
};
const Kind kKinds[] = {
    {"attention", eval_attention},
    {"self_attention", eval_self_attention},
    {"positional", eval_positional},
    {"rnn", eval_rnn},
    {"transformer_block", eval_transformer_block},
    {"decoder", eval_decoder},
};
}  // namespace

std::string EvalResult::error_line() const {
  if (ok) return "";
  std::string line = error.field.empty() ? error.message : "field " + json::quote(error.field) + ": " + error.message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';  // the CLI promises exactly one line
  return line;
}

EvalResult eval_request(std::string_view json_text, const EvalOptions& options) {
  EvalResult result;
  json::ParseLimits parse_limits;
  parse_limits.max_bytes = options.limits.max_bytes;
  const json::ParseResult parsed = json::parse(json_text, parse_limits);
  if (!parsed.ok) {
    result.error = EvalError{"", "invalid JSON: " + parsed.error.to_string()};
    return result;
  }
  const Value& request = parsed.value;
  if (!request.is_object()) {
    result.error = EvalError{"", "expected a JSON object with a \"kind\" field, got " + describe(request)};
    return result;
  }

  Ctx ctx(options.limits);
  Fields fields(ctx, request, "");
  std::string kinds;  // "\"attention\", ... or \"decoder\"", for the errors
  for (const Kind& k : kKinds)
    kinds += std::string(kinds.empty() ? "" : &k == std::end(kKinds) - 1 ? " or " : ", ") + json::quote(k.name);
  const Value* kind = fields.get("kind");
  Value response = Value::object();
  if (!kind) {
    ctx.fail("kind", "missing; expected " + kinds);
  } else if (!kind->is_string()) {
    ctx.fail("kind", "expected " + kinds + ", got " + describe(*kind));
  } else {
    const std::string& k = kind->as_string();
    response.set("kind", k);
    const Kind* found = nullptr;
    for (const Kind& c : kKinds)
      if (k == c.name) found = &c;
    if (found) found->eval(fields, &response);
    else ctx.fail("kind", "expected " + kinds + ", got " + describe(*kind));
  }
  if (ctx.failed) {
    result.error = ctx.error;
    return result;
  }
  fields.warn_unused();
  Value warnings = Value::array();
  for (const std::string& w : ctx.warnings) warnings.push(w);
  response.set("warnings", std::move(warnings));

  json::WriteOptions write_options;
  write_options.pretty = options.pretty;
  result.response = json::write(response, write_options);
  if (options.pretty) result.response += '\n';
  result.ok = true;
  result.exit_status = 0;
  return result;
}

}  // namespace attn
