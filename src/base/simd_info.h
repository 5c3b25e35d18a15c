// simd_info.h: which SIMD instruction sets this build of the core really uses.
#pragma once

namespace attn {

// Eigen's own report, e.g. "SSE, SSE2, SSE3, SSSE3, SSE4.1" (in WebAssembly these
// are lowered to SIMD128), or "None" for a scalar build.
const char* eigen_simd_in_use();

// True when the compiler targeted WebAssembly SIMD128 (-msimd128).
bool wasm_simd128_enabled();

}  // namespace attn
