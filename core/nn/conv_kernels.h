#pragma once
// im2col / col2im for channel-major images. The column buffer is "transposed" (Caffe style):
// a column-major (samples * outPixels) x (channels * kh * kw) matrix, so each kernel tap of
// each sample is a contiguous run of output pixels (a shifted copy of an input row for
// stride 1).
#include <cstdint>

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

// Writes the taps of `samples` consecutive images (each inSize() floats apart) into `col`,
// whose leading dimension is ld (>= samples * outPixels()); sample s occupies rows
// [s * outPixels(), (s + 1) * outPixels()).
void im2col(const ConvGeometry& g, const float* images, int samples, float* col, std::int64_t ld);
// The adjoint: adds the column gradients back into the (zeroed by the caller) images.
void col2im(const ConvGeometry& g, const float* col, std::int64_t ld, int samples, float* images);

}  // namespace core::nn
