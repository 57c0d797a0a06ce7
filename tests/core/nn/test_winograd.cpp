// The Winograd convolution alone, every tile it has (F(2, 3), F(4, 3), F(2, 5)), against the
// convolution's sums in double: forward, input gradient and weight gradient, on edges that cut
// tiles, every padding it takes, partial vectors of channels and filters and more tiles than a
// GEMM block. (Conv2D's finite-difference checks are in test_gradients.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/nn/gemm.h"
#include "core/nn/winograd.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

ConvGeometry geometry(int channels, int h, int w, int r, int pad) {
  ConvGeometry g;
  g.channels = channels;
  g.height = h;
  g.width = w;
  g.kernelH = g.kernelW = r;
  g.padTop = g.padLeft = pad;
  g.outH = h + 2 * pad - r + 1;
  g.outW = w + 2 * pad - r + 1;
  return g;
}

// The convolution in double. x: samples x channels x h x w; weights (o, i, ky, kx) at
// w[o + filters * ((i * r + ky) * r + kx)], as WinogradConv reads them.
struct Reference {
  std::vector<double> y, dx, dw;
};
Reference reference(const ConvGeometry& g, int filters, int samples, const std::vector<float>& x,
                    const std::vector<float>& w, const std::vector<float>& bias,
                    const std::vector<float>& gy) {
  const int r = g.kernelH;
  const std::int64_t inPix = static_cast<std::int64_t>(g.height) * g.width, outPix = g.outPixels();
  Reference ref;
  ref.y.assign(static_cast<std::size_t>(samples * filters * outPix), 0.0);
  ref.dx.assign(x.size(), 0.0);
  ref.dw.assign(w.size(), 0.0);
  for (int s = 0; s < samples; ++s)
    for (int o = 0; o < filters; ++o)
      for (int oy = 0; oy < g.outH; ++oy)
        for (int ox = 0; ox < g.outW; ++ox) {
          const std::size_t yi = static_cast<std::size_t>((s * filters + o) * outPix + oy * g.outW + ox);
          double sum = bias[static_cast<std::size_t>(o)];
          for (int i = 0; i < g.channels; ++i)
            for (int ky = 0; ky < r; ++ky)
              for (int kx = 0; kx < r; ++kx) {
                const int iy = oy + ky - g.padTop, ix = ox + kx - g.padLeft;
                if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
                const std::size_t xi =
                    static_cast<std::size_t>((s * g.channels + i) * inPix + iy * g.width + ix);
                const std::size_t wi = static_cast<std::size_t>(o + filters * ((i * r + ky) * r + kx));
                sum += static_cast<double>(w[wi]) * x[xi];
                ref.dx[xi] += static_cast<double>(w[wi]) * gy[yi];
                ref.dw[wi] += static_cast<double>(x[xi]) * gy[yi];
              }
          ref.y[yi] = sum;
        }
  return ref;
}

std::vector<float> normals(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = normal(rng);
  return v;
}

// The largest error over the largest magnitude of the reference; a NaN anywhere is NaN (which
// fails every bound).
double relativeError(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::abs(got[i] - want[i]);
    if (!(d <= err)) err = d;
    scale = std::max(scale, std::abs(want[i]));
  }
  return err / scale;
}

struct Errors {
  double y, dx, dw;
};

// Runs one WinogradConv (tile m) forward and backward on random data (which `shape(x, gy)` may
// change) and measures it against the reference; dW is accumulated onto a first value, as a
// second sub-batch does.
using ShapeData = std::function<void(std::vector<float>& x, std::vector<float>& gy)>;
Errors runAgainstReference(const ConvGeometry& g, int filters, int samples, int tile,
                           util::Precision precision, const ShapeData& shape = {}) {
  WinogradConv conv(g, filters, tile);
  EXPECT_EQ(conv.tile(), tile);
  const std::int64_t outSize = static_cast<std::int64_t>(filters) * g.outPixels();
  std::vector<float> x = normals(static_cast<std::size_t>(samples * g.inSize()), 1);
  const std::vector<float> w = normals(static_cast<std::size_t>(filters * g.patchSize()), 2);
  const std::vector<float> bias = normals(static_cast<std::size_t>(filters), 3);
  std::vector<float> gy = normals(static_cast<std::size_t>(samples * outSize), 4);
  if (shape) shape(x, gy);
  const Reference ref = reference(g, filters, samples, x, w, bias, gy);

  std::vector<float> y(static_cast<std::size_t>(samples * outSize)),
      kept(static_cast<std::size_t>(samples * conv.keptInputSize()));
  conv.prepareForward(w.data(), precision);
  conv.forward(x.data(), samples, bias.data(), Activation::Linear, y.data(), kept.data(), precision);
  std::vector<float> dx(x.size());
  const std::vector<float> first = normals(w.size(), 5);
  std::vector<float> dw = first;
  conv.prepareInputGradient(w.data(), precision);
  conv.backward(kept.data(), gy.data(), samples, dw.data(), true, dx.data(), precision);
  for (std::size_t i = 0; i < dw.size(); ++i) dw[i] -= first[i];
  return {relativeError(y, ref.y), relativeError(dx, ref.dx), relativeError(dw, ref.dw)};
}

struct Case {
  int channels, h, w, pad, filters, samples;
};

// On every set of tile transforms the CPU has (they are chosen at run time, as the GEMM kernels).
TEST(Winograd, EveryTileIsTheConvolutionInFp32) {
  struct Tile {
    int m, r;
  };
  const std::vector<Case> cases = {
      {5, 9, 7, -1, 6, 3},    // "same" padding, tiles cut at both edges
      {3, 10, 11, 0, 18, 2},  // valid: no padding; filters past one vector
      {17, 8, 8, -2, 4, 2},   // padding r - 1 (the transposed convolution has none); channels past one vector
      {4, 13, 6, -3, 5, 2},   // padding r - 2
      {4, 11, 6, 1, 5, 2},    // padding 1 whatever r
      {6, 16, 16, -1, 16, 3},  // more tiles than one GEMM block
  };
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    for (Tile t : {Tile{2, 3}, Tile{4, 3}, Tile{2, 5}})
      for (const Case& c : cases) {
        const int pad = c.pad == -1 ? t.r / 2 : c.pad == -2 ? t.r - 1 : c.pad == -3 ? t.r - 2 : c.pad;
        const ConvGeometry g = geometry(c.channels, c.h, c.w, t.r, pad);
        SCOPED_TRACE("F(" + std::to_string(t.m) + ", " + std::to_string(t.r) + ") on " +
                     std::to_string(c.channels) + " x " + std::to_string(c.h) + " x " + std::to_string(c.w) +
                     ", padding " + std::to_string(pad));
        ASSERT_TRUE(WinogradConv::supports(g));
        const Errors e = runAgainstReference(g, c.filters, c.samples, t.m, util::Precision::FP32);
        EXPECT_LT(e.y, 1e-5);
        EXPECT_LT(e.dx, 1e-5);
        EXPECT_LT(e.dw, 1e-5);
      }
  }
  limitGemmIsa(was);
}

// With a padding of r - 1 the weight gradient's last gy tiles of a sample reach past gy, into the
// input gradient's grid beyond it, which must be zeros of this sample: the next sample's gy there
// (large, its input zero, so it adds nothing of its own) would show in dW.
TEST(Winograd, TheWeightGradientReadsNoOtherSamplesGradient) {
  const ConvGeometry g = geometry(16, 8, 8, 3, 2);  // 10 x 10 outputs: 3 x 3 tiles of 4 reach row 12
  const std::int64_t inSize = g.inSize(), outSize = 4 * g.outPixels();
  const Errors e = runAgainstReference(g, 4, 2, 4, util::Precision::FP32,
                                       [&](std::vector<float>& x, std::vector<float>& gy) {
                                         std::fill(x.begin() + inSize, x.end(), 0.0f);
                                         for (std::int64_t f = 0; f < 4; ++f)
                                           std::fill_n(gy.begin() + outSize + f * g.outPixels(), 2 * g.outW,
                                                       1e6f);  // sample 1's first two rows
                                       });
  EXPECT_LT(e.dw, 1e-5);
  EXPECT_LT(e.y, 1e-5);
}

// bf16 operands: each rounding of a transformed tile spreads over the output's terms, more so
// in the larger tiles. With the six points 0, +-3/2, +-2/3 the error stays under 3.5% of the
// largest value (measured F(2, 3) 0.4-0.5%, F(4, 3) 1.5-2.2%, F(2, 5) 1.1-2.4%, on 16 to 64
// channels); with Lavin's 0, +-1, +-2 it was F(4, 3) 6-8%, F(2, 5) 4-11% (on this layer 6.4% and
// 4.4% of its output).
TEST(Winograd, Bf16KeepsTheErrorOfItsRounding) {
  struct Tile {
    int m, r;
    double bound;
  };
  for (Tile t : {Tile{2, 3, 0.01}, Tile{4, 3, 0.035}, Tile{2, 5, 0.035}}) {
    SCOPED_TRACE("F(" + std::to_string(t.m) + ", " + std::to_string(t.r) + ")");
    const Errors e =
        runAgainstReference(geometry(32, 16, 16, t.r, t.r / 2), 32, 2, t.m, util::Precision::BF16);
    EXPECT_GT(e.y, 1e-4);  // bf16 did round: not an fp32 answer
    EXPECT_LT(e.y, t.bound);
    EXPECT_LT(e.dx, t.bound);
    EXPECT_LT(e.dw, t.bound);
  }
}

TEST(Winograd, TakesTheTileWithFewerProducts) {
  EXPECT_EQ(WinogradConv::tileFor(geometry(16, 32, 32, 3, 1)), 4);  // 64 tiles of 36 against 256 of 16
  EXPECT_EQ(WinogradConv::tileFor(geometry(64, 8, 8, 3, 1)), 4);
  EXPECT_EQ(WinogradConv::tileFor(geometry(64, 7, 7, 3, 1)), 4);  // 4 x 36 against 16 x 16
  EXPECT_EQ(WinogradConv::tileFor(geometry(64, 2, 2, 3, 1)), 2);  // one 2 x 2 tile of 16 against one of 36
  EXPECT_EQ(WinogradConv::tileFor(geometry(64, 4, 4, 3, 0)), 2);
  EXPECT_EQ(WinogradConv::tileFor(geometry(64, 28, 28, 5, 2)), 2);  // 5x5 has F(2, 5) only
  EXPECT_EQ(WinogradConv(geometry(8, 12, 12, 3, 1), 8).tile(), 4);
  EXPECT_THROW(WinogradConv(geometry(8, 12, 12, 5, 2), 8, 4), util::Error);
  EXPECT_THROW(WinogradConv(geometry(8, 12, 12, 3, 1), 8, 3), util::Error);
}

}  // namespace
}  // namespace core::nn
