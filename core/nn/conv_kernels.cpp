#include "core/nn/conv_kernels.h"

#include <algorithm>
#include <cstring>

namespace core::nn {
namespace {

// Output columns [ox0, ox1) read input columns inside the image for tap kx.
inline void validRange(const ConvGeometry& g, int kx, int& ox0, int& ox1) {
  // ix = ox * sw + kx - padLeft must be in [0, width)
  const int lo = g.padLeft - kx;  // ox * sw >= lo
  const int hi = g.width + g.padLeft - kx;  // ox * sw < hi
  ox0 = lo <= 0 ? 0 : (lo + g.strideW - 1) / g.strideW;
  ox1 = hi <= 0 ? 0 : std::min(g.outW, (hi + g.strideW - 1) / g.strideW);
  if (ox1 < ox0) ox1 = ox0;
}

}  // namespace

void im2col(const ConvGeometry& g, const float* images, int samples, float* col, std::int64_t ld) {
  const std::int64_t pixels = g.outPixels(), inSize = g.inSize(), plane = static_cast<std::int64_t>(g.height) * g.width;
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernelH; ++ky)
      for (int kx = 0; kx < g.kernelW; ++kx) {
        const std::int64_t k = (static_cast<std::int64_t>(c) * g.kernelH + ky) * g.kernelW + kx;
        int ox0, ox1;
        validRange(g, kx, ox0, ox1);
        for (int s = 0; s < samples; ++s) {
          const float* src = images + s * inSize + c * plane;
          float* dst = col + k * ld + s * pixels;
          for (int oy = 0; oy < g.outH; ++oy) {
            float* row = dst + static_cast<std::int64_t>(oy) * g.outW;
            const int iy = oy * g.strideH + ky - g.padTop;
            if (iy < 0 || iy >= g.height) {
              std::fill_n(row, g.outW, 0.0f);
              continue;
            }
            std::fill_n(row, ox0, 0.0f);
            const std::int64_t base = static_cast<std::int64_t>(iy) * g.width + kx - g.padLeft;
            if (g.strideW == 1) {
              if (ox1 > ox0) std::memcpy(row + ox0, src + base + ox0, sizeof(float) * static_cast<std::size_t>(ox1 - ox0));
            } else {
              for (int ox = ox0; ox < ox1; ++ox) row[ox] = src[base + static_cast<std::int64_t>(ox) * g.strideW];
            }
            std::fill(row + ox1, row + g.outW, 0.0f);
          }
        }
      }
}

void col2im(const ConvGeometry& g, const float* col, std::int64_t ld, int samples, float* images) {
  const std::int64_t pixels = g.outPixels(), inSize = g.inSize(), plane = static_cast<std::int64_t>(g.height) * g.width;
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernelH; ++ky)
      for (int kx = 0; kx < g.kernelW; ++kx) {
        const std::int64_t k = (static_cast<std::int64_t>(c) * g.kernelH + ky) * g.kernelW + kx;
        int ox0, ox1;
        validRange(g, kx, ox0, ox1);
        for (int s = 0; s < samples; ++s) {
          float* dst = images + s * inSize + c * plane;
          const float* src = col + k * ld + s * pixels;
          for (int oy = 0; oy < g.outH; ++oy) {
            const int iy = oy * g.strideH + ky - g.padTop;
            if (iy < 0 || iy >= g.height) continue;
            const float* row = src + static_cast<std::int64_t>(oy) * g.outW;
            const std::int64_t base = static_cast<std::int64_t>(iy) * g.width + kx - g.padLeft;
            for (int ox = ox0; ox < ox1; ++ox) dst[base + static_cast<std::int64_t>(ox) * g.strideW] += row[ox];
          }
        }
      }
}

}  // namespace core::nn
