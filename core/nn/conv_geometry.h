#pragma once
// A convolution's window geometry, and the tap table its GEMM packers use.
#include <cstdint>
#include <vector>

namespace core::nn {

struct ConvGeometry {
  int channels = 1, height = 1, width = 1;   // input, per sample
  int kernelH = 1, kernelW = 1;
  int strideH = 1, strideW = 1;
  int padTop = 0, padLeft = 0;
  int outH = 1, outW = 1;
  std::int64_t inSize() const { return static_cast<std::int64_t>(channels) * height * width; }
  std::int64_t outPixels() const { return static_cast<std::int64_t>(outH) * outW; }
  std::int64_t patchSize() const { return static_cast<std::int64_t>(channels) * kernelH * kernelW; }
};

// Patch index -> (channel, ky, kx), precomputed so packers never divide per element.
struct ConvTap {
  std::int32_t channel, ky, kx;
};

// The input zero-padded once per pass, so a patch element is one load at
// pixelOffset(sample, oy, ox) + tapOffset[tap]: no bounds checks while packing.
struct ConvPlan {
  ConvGeometry g;
  std::vector<ConvTap> taps;
  int paddedH = 1, paddedW = 1;          // rows/columns the windows reach, padding included
  std::vector<std::int32_t> tapOffsets;  // channel * paddedH * paddedW + ky * paddedW + kx
  ConvPlan() = default;
  explicit ConvPlan(const ConvGeometry& geometry) : g(geometry) {
    paddedH = (g.outH - 1) * g.strideH + g.kernelH;
    paddedW = (g.outW - 1) * g.strideW + g.kernelW;
    taps.reserve(static_cast<std::size_t>(g.patchSize()));
    for (int c = 0; c < g.channels; ++c)
      for (int ky = 0; ky < g.kernelH; ++ky)
        for (int kx = 0; kx < g.kernelW; ++kx) {
          taps.push_back({c, ky, kx});
          tapOffsets.push_back(static_cast<std::int32_t>((static_cast<std::int64_t>(c) * paddedH + ky) * paddedW + kx));
        }
  }
  std::int64_t paddedSize() const { return static_cast<std::int64_t>(g.channels) * paddedH * paddedW; }
};

}  // namespace core::nn
