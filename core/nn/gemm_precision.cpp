#include "core/nn/gemm_precision.h"

#include "core/nn/eigen.h"
#include <algorithm>
#include <bit>
#include <cmath>

namespace core::nn {
namespace {

// Keeps the top (32 - dropBits) bits of an fp32, rounding to nearest even.
inline float roundMantissa(float v, int dropBits) {
  std::uint32_t b = std::bit_cast<std::uint32_t>(v);
  if ((b & 0x7f800000u) == 0x7f800000u) return v;  // inf / NaN unchanged
  const std::uint32_t half = (1u << (dropBits - 1)) - 1u;
  const std::uint32_t lsb = (b >> dropBits) & 1u;
  b += half + lsb;
  b &= ~((1u << dropBits) - 1u);
  return std::bit_cast<float>(b);
}

inline float roundHalf(float v) { return static_cast<float>(Eigen::half(v)); }

}  // namespace

float roundToPrecision(float v, util::Precision p) {
  switch (p) {
    case util::Precision::FP32: return v;
    case util::Precision::TF32: return roundMantissa(v, 13);
    case util::Precision::BF16: return roundMantissa(v, 16);
    case util::Precision::FP16: return roundHalf(v);
    case util::Precision::FP8: return roundMantissa(v, 20);  // E4M3's 3 mantissa bits, unscaled
    case util::Precision::FP4: return roundMantissa(v, 22);  // E2M1's 1 mantissa bit, unscaled
  }
  return v;
}

void copyRounded(const float* src, float* dst, std::int64_t n, util::Precision p) {
  switch (p) {
    case util::Precision::FP32:
      if (src != dst) std::copy_n(src, n, dst);
      return;
    case util::Precision::TF32:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = roundMantissa(src[i], 13);
      return;
    case util::Precision::BF16:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = roundMantissa(src[i], 16);
      return;
    case util::Precision::FP16:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = roundHalf(src[i]);
      return;
    case util::Precision::FP8:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = roundMantissa(src[i], 20);
      return;
    case util::Precision::FP4:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = roundMantissa(src[i], 22);
      return;
  }
}

void roundInPlace(float* data, std::int64_t n, util::Precision p) { copyRounded(data, data, n, p); }

}  // namespace core::nn
