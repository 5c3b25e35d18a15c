# cmake -P: fails unless WASM contains WebAssembly SIMD128 float instructions (f32x4),
# i.e. unless the -msimd128 -msse4.1 build really vectorised.
find_program(OBJDUMP wasm-objdump REQUIRED)
execute_process(COMMAND ${OBJDUMP} -d ${WASM} OUTPUT_VARIABLE dis RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "wasm-objdump failed on ${WASM}: ${err}")
endif()
string(REGEX MATCHALL "f32x4\\.[a-z_]+" ops "${dis}")
list(LENGTH ops n)
if(n EQUAL 0)
  message(FATAL_ERROR "${WASM} has no f32x4 instructions: the SIMD build did not vectorise")
endif()
message(STATUS "SIMD check: ${n} f32x4 instructions in ${WASM}")
