/* Empty on purpose. Emscripten 3.1.6 ships no MMX header, so with -msse4.1 clang's
   x86 one would be found instead and fail. Eigen includes it but uses nothing from it. */
