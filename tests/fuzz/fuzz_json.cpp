// fuzz_json: the JSON parser never crashes, and what it accepts writes back to
// text that parses to the same value (compact and pretty, numbers as doubles).
#include "base/json.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attn::json;
  ParseLimits limits;
  limits.max_bytes = 1 << 16;
  const ParseResult first = parse(fuzz::text(data, size), limits);
  if (!first.ok) {
    fuzz::require(!first.error.message.empty(), "a parse error has a message");
    return 0;
  }
  for (bool pretty : {false, true}) {
    WriteOptions options;
    options.pretty = pretty;
    options.numbers = NumberStyle::Float64;
    const std::string written = write(first.value, options);
    ParseLimits again_limits;  // the written text may be longer (escapes, indentation)
    const ParseResult again = parse(written, again_limits);
    fuzz::require(again.ok, "written JSON parses", again.error.to_string() + "\n" + written);
    fuzz::require(again.value == first.value, "written JSON parses to the same value", written);
    fuzz::require(write(again.value, options) == written, "writing is stable", written);
  }
  return 0;
}
