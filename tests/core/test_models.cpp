// test_models.cpp: the trainable models of src/core/train (placeholder).
#include <doctest/doctest.h>
