#pragma once
// Mixed precision as frameworks run it: GEMM inputs rounded to a 16-bit (or TF32) format,
// accumulation and master weights in fp32. Rounding is to nearest, ties to even; values
// beyond a format's range become +-inf and tiny ones flush through subnormals to zero,
// exactly as the hardware format would store them.
#include <cstdint>

#include "core/util/precision.h"

namespace core::nn {

float roundToPrecision(float v, util::Precision p);
// In place on n floats (no-op for FP32).
void roundInPlace(float* data, std::int64_t n, util::Precision p);
// dst = round(src) on n floats (a plain copy for FP32).
void copyRounded(const float* src, float* dst, std::int64_t n, util::Precision p);

}  // namespace core::nn
