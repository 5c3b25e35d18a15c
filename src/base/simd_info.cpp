#include "base/simd_info.h"

#include <Eigen/Core>

namespace attn {

const char* eigen_simd_in_use() { return Eigen::SimdInstructionSetsInUse(); }

bool wasm_simd128_enabled() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

}  // namespace attn
