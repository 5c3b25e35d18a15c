/* Force-included in the WebAssembly build with SIMD (see CMakeLists.txt).
   Eigen 3.4.0 detects clang-as-emcc as an old GCC and then emits x86 inline asm in
   pmin/pmax, which cannot compile to wasm. Re-stating a GCC version of 6.3 takes
   Eigen down its intrinsic path instead. */
#ifdef __cplusplus
#include <Eigen/src/Core/util/Macros.h>
#undef EIGEN_COMP_GNUC
#define EIGEN_COMP_GNUC 63
#endif
