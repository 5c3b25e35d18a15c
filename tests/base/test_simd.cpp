// The WebAssembly build must really be vectorised: Eigen has to report SIMD in use.
// (The build itself separately fails when the page's .wasm has no f32x4 instruction.)
#include <doctest/doctest.h>

#include <string>

#include "base/simd_info.h"

TEST_CASE("Eigen uses SIMD instructions in this build") {
  const std::string sets = attn::eigen_simd_in_use();
  MESSAGE("Eigen SIMD in use: " << sets);
#if defined(__EMSCRIPTEN__)
  CHECK(attn::wasm_simd128_enabled());
  CHECK(sets != "None");
#elif defined(__SSE2__) || defined(__ARM_NEON)
  CHECK(sets != "None");
#endif
}
