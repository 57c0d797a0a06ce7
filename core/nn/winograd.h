#pragma once
// Winograd F(m x m, r x r) convolution (Lavin & Gray 2016) for stride-1 square kernels: F(2, 3),
// F(4, 3) and F(2, 5), used for training: forward, input gradient (the same algorithm on the
// output gradient with flipped kernels) and weight gradient (F(r x r, m x m) over the same input
// transform). Per output pixel it multiplies (m + r - 1)^2 / m^2 times instead of r^2 (4x fewer
// for F(4, 3), 2.25x for F(2, 3), 2.8x for F(2, 5)); the element-wise products of all tiles and
// channels become (m + r - 1)^2 GEMMs. Transforms are vectorised over 16 tiles at a time.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/activation.h"
#include "core/nn/conv_geometry.h"
#include "core/nn/gemm.h"
#include "core/util/precision.h"

namespace core::nn {

class WinogradConv {
public:
  // True for stride 1, a square 3x3 or 5x5 kernel and padding below the kernel size.
  static bool supports(const ConvGeometry& g);

  // The output tile a 3x3 kernel takes: 4, unless the output is 1 or 2 pixels on a side, where
  // 2 x 2 tiles cover it with fewer products; 5x5 kernels take 2.
  static int tileFor(const ConvGeometry& g);

  WinogradConv() = default;
  // `tile` = m, 2 or 4 (4 only for 3x3); 0 chooses tileFor(g).
  WinogradConv(const ConvGeometry& g, int filters, int tile = 0);
  const ConvGeometry& geometry() const { return m_g; }
  int tile() const;

  // Transforms the weights (filters x patchSize, column-major) for forward() and packs them.
  void prepareForward(const float* weights, util::Precision precision);
  // The same for backward()'s input gradient: kernels flipped, channels and filters swapped.
  void prepareInputGradient(const float* weights, util::Precision precision);

  // Floats a sample of the input takes laid out channel-last and zero-padded into the tile grid:
  // forward() keeps it there for backward().
  std::int64_t keptInputSize() const;
  // y (samples x filters x outPixels) = conv(x) + bias, then the activation; the input's tile grid
  // left in `kept` (samples x keptInputSize()).
  void forward(const float* x, int samples, const float* bias, Activation activation, float* y, float* kept,
               util::Precision precision) const;
  // From the grid forward() kept and gy (samples x filters x outPixels): dW (filters x patchSize,
  // column-major, overwritten or accumulated) and, unless dx is null, dx (samples x channels x
  // inPixels). gy is laid out channel-last once, for both.
  void backward(const float* kept, const float* gy, int samples, float* dw, bool accumulate, float* dx,
                util::Precision precision) const;

  // Implementation details, defined in winograd.cpp.
  struct Transforms;  // the F(m, r) matrices
  struct Direction;   // one convolution direction: geometry, tiles, packed weights

private:
  ConvGeometry m_g;
  int m_filters = 0;
  std::shared_ptr<const Transforms> m_t;
  std::shared_ptr<Direction> m_forward, m_backward;  // filters <- channels, channels <- filters
};

}  // namespace core::nn
