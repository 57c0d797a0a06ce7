#include "core/nn/conv2d.h"

#include <algorithm>

#include "core/nn/conv_gemm.h"
#include "core/nn/direct_conv.h"
#include "core/nn/gemm_precision.h"
#include "core/nn/pooling.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {
namespace {
constexpr int kWinogradMinChannels = 32;  // see inferShape

// Samples a convolution feeding a max pooling computes at a time: their output (or its gradient)
// within 64 KiB, so the pooling reads it from cache (at least one sample; 16 and 256 KiB measured
// no faster on LeNet).
int fedGroup(std::int64_t outRows) {
  constexpr std::int64_t kBytes = 64 * 1024;
  return static_cast<int>(
      std::max<std::int64_t>(1, kBytes / (static_cast<std::int64_t>(sizeof(float)) * outRows)));
}
}  // namespace

Conv2D::Conv2D(Conv2DOptions o, std::string name) : Layer(LayerKind::Conv2D, std::move(name)), m_o(o) {
  if (o.filters <= 0) fail("filters must be positive, got " + std::to_string(o.filters));
  if (o.kernelH <= 0 || o.kernelW <= 0) fail("kernel size must be positive");
  if (o.strideH <= 0 || o.strideW <= 0) fail("stride must be positive");
}

Shape Conv2D::inferShape(Shape in) {
  m_pool = nullptr;  // until the container links the layer after (takeFollowingLayer)
  const WindowAxis y = windowAxis(in.h, m_o.kernelH, m_o.strideH, m_o.padding.mode, m_o.padding.h);
  const WindowAxis x = windowAxis(in.w, m_o.kernelW, m_o.strideW, m_o.padding.mode, m_o.padding.w);
  const ConvGeometry g{in.c, in.h, in.w, m_o.kernelH, m_o.kernelW, m_o.strideH, m_o.strideW,
                      y.padBefore, x.padBefore, y.out, x.out};
  if (y.out > 0 && x.out > 0) {
    m_plan = ConvPlan(g);
    const bool canDirect = g.strideH == 1 && g.strideW == 1 && g.padTop <= g.kernelH - 1 && g.padLeft <= g.kernelW - 1;
    const bool canWinograd = WinogradConv::supports(g);
    // Winograd pays for its transforms and channel-last copies only from 32 channels in and
    // out: at 16 (ResNet-20's first stage) the patch GEMM is faster (measured on 2 AVX-512
    // threads, the whole model at batch 128: 547 vs 462 images/s median of 4 rounds, with
    // F(2, 3); with F(4, 3) one 16-channel layer alone is 10% faster than direct loops in fp32,
    // 30-35% slower in bf16, where the direct loops multiply in bf16).
    const bool autoWinograd = canWinograd && g.channels >= kWinogradMinChannels && m_o.filters >= kWinogradMinChannels;
    m_winograd.reset();
    if (m_o.algorithm == ConvAlgorithm::Winograd ? canWinograd : m_o.algorithm == ConvAlgorithm::Auto && autoWinograd)
      m_winograd = std::make_unique<WinogradConv>(g, m_o.filters);
    m_direct = !m_winograd && canDirect &&
               (m_o.algorithm == ConvAlgorithm::Direct ||
                (m_o.algorithm == ConvAlgorithm::Auto && (g.channels <= 8 || m_o.filters <= 16)));
    if (m_direct || hasTransposedForm(g)) m_transposedPlan = ConvPlan(transposedGeometry(g, m_o.filters));
  }
  return {m_o.filters, y.out, x.out};
}

bool Conv2D::takeFollowingLayer(Layer& next) {
  auto* pool = dynamic_cast<MaxPool2D*>(&next);
  const bool outputUnneeded = m_activationGradientTaken || m_o.activation == Activation::Linear;
  m_pool = pool && m_direct && outputUnneeded ? pool : nullptr;
  if (m_pool) m_pool->setFed(true);
  return m_pool != nullptr;
}

float* Conv2D::chunkScratch(int chunk, std::int64_t floats) {
  Vector& own = m_chunkOut[static_cast<std::size_t>(chunk)];
  own.resize(floats);
  return own.data();
}

std::int64_t Conv2D::paramCount() const {
  return static_cast<std::int64_t>(m_o.filters) * m_plan.g.patchSize() + (m_o.bias ? m_o.filters : 0);
}

void Conv2D::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double m = m_o.filters, k = static_cast<double>(m_plan.g.patchSize()), n = static_cast<double>(m_plan.g.outPixels());
  const double outs = m * n;
  s.forwardFlops = 2 * m * k * n + (m_o.bias ? outs : 0) + outs * activationForwardFlops(m_o.activation);
  s.productFlops = 2 * m * k * n;
  s.backwardFlops = 4 * m * k * n + (m_o.bias ? outs : 0) + outs * activationBackwardFlops(m_o.activation);
  s.gemmM = m_o.filters;
  s.gemmK = m_plan.g.patchSize();
  s.gemmN = m_plan.g.outPixels();
  out.push_back(s);
}

void Conv2D::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_w = s.params;
  m_dw = s.grads;
  m_wGemm = s.gemmParams;
}

void Conv2D::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  const double taps = static_cast<double>(m_o.kernelH) * m_o.kernelW;
  const double fanIn = m_plan.g.channels * taps, fanOut = m_o.filters * taps;
  const std::int64_t nw = static_cast<std::int64_t>(m_o.filters) * m_plan.g.patchSize();
  initWeights(m_o.init, m_w, nw, fanIn, fanOut, rng);
  if (m_o.bias) initBias(m_o.init, m_w + nw, m_o.filters, fanIn, rng);
}

}  // namespace core::nn

// --- compute ------------------------------------------------------------------------------------

namespace core::nn {

const Matrix& Conv2D::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index batch = x.cols(), filters = m_o.filters, patch = m_plan.g.patchSize(), pixels = m_plan.g.outPixels();
  const Eigen::Index outRows = filters * pixels;
  // Feeding a max pooling: each group of samples' output goes to the chunk's scratch and is
  // pooled from there; the whole output is never kept.
  const bool fed = m_pool != nullptr;
  m_y.resize(fed ? 0 : outRows, fed ? 0 : batch);
  if (fed) m_pool->sizeOutput(batch);
  const int fedSamples = fedGroup(outRows);
  // out (pixels x filters) = patches (pixels x patch) * W^T; W is filters x patch.
  const GemmOperand wt{m_wGemm, filters, Transpose::Yes};
  // Winograd saves multiplies at the price of fp32 transforms; where bf16 runs on AMX tiles the
  // multiplies are ten times cheaper than those transforms, so the plain GEMM wins (measured:
  // colab-cnn 801 -> 851 images/s). A direct convolution of few channels stays: as a GEMM on
  // tiles it was slower (resnet20 605 -> 554). The backward pass follows the forward pass's
  // choice (it reuses its padded input).
  // A layer built to run Winograd (ConvAlgorithm::Winograd) keeps it.
  m_winogradNow = m_winograd && !(m_o.algorithm == ConvAlgorithm::Auto && ctx.precision == util::Precision::BF16 &&
                                  gemmIsa() == GemmIsa::Amx);
  if (m_winogradNow) m_winograd->prepareForward(m_wGemm, ctx.precision);
  else if (!m_direct) m_packedW.pack(gemmB(wt), patch, filters, ctx.precision);
  const float* bias = m_o.bias ? m_w + filters * patch : nullptr;
  // A direct convolution in bf16 hardware pads sample by sample and keeps its input as bf16.
  m_directBf16 = m_direct && directConvOnBf16Hardware(ctx.precision);
  const std::int64_t padded = m_plan.paddedSize();
  // Only the copy this path reads stays allocated (Winograd keeps its input channel-last on its
  // tile grid).
  if (m_directBf16) m_paddedBf16.resize(static_cast<std::size_t>(padded * batch));
  else std::vector<std::uint16_t>().swap(m_paddedBf16);
  // Where padding would copy the input unchanged (nothing padded and the windows reach every row
  // and column: a 'valid' convolution whose stride fits the input) and nothing rounds it in place,
  // the kernels read x itself, and the backward pass reads it again there (x stays as it was until
  // then: Layer::backward).
  const ConvGeometry& g = m_plan.g;
  m_readsInput = !m_winogradNow && !m_directBf16 && !(m_direct && ctx.precision != util::Precision::FP32) &&
                 g.padTop == 0 && g.padLeft == 0 && m_plan.paddedH == g.height && m_plan.paddedW == g.width;
  m_padded.resize(
      m_directBf16 || m_readsInput ? 0 : (m_winogradNow ? m_winograd->keptInputSize() : padded) * batch);
  const int chunks = chunksFor(ctx, 2 * filters * patch * pixels * batch / 64, batch);
  if (fed) m_chunkOut.resize(static_cast<std::size_t>(chunks));
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    // Where samples s0.. go: the chunk's scratch when fed (pooled by `done`), else the output.
    float* scratch = fed ? chunkScratch(c, fedSamples * outRows) : nullptr;
    const auto outAt = [&](std::ptrdiff_t s0) { return fed ? scratch : m_y.data() + s0 * outRows; };
    const auto done = [&](std::ptrdiff_t s0, int n) {
      if (fed) m_pool->poolSamples(scratch, n, s0);
    };
    if (m_winogradNow) {
      m_winograd->forward(x.data() + b * x.rows(), static_cast<int>(e - b), bias, m_o.activation, m_y.data() + b * outRows,
                          m_padded.data() + b * m_winograd->keptInputSize(), ctx.precision);
      return;
    }
    if (m_directBf16) {
      const std::ptrdiff_t group = fed ? fedSamples : e - b;
      for (std::ptrdiff_t s0 = b; s0 < e; s0 += group) {
        const int n = static_cast<int>(std::min(group, e - s0));
        directConvForwardBf16(m_plan, x.data() + s0 * x.rows(), n, m_wGemm, static_cast<int>(filters), bias,
                              m_o.activation, outAt(s0), m_paddedBf16.data() + s0 * padded);
        done(s0, n);
      }
      return;
    }
    const std::ptrdiff_t group =
        fed ? std::min(fedSamples, maxSamplesPerGemm(m_plan)) : maxSamplesPerGemm(m_plan);
    for (std::ptrdiff_t s0 = b; s0 < e; s0 += group) {
      const int n = static_cast<int>(std::min(group, e - s0));
      const float* pad = x.data() + s0 * x.rows();
      if (!m_readsInput) {
        float* copy = m_padded.data() + s0 * padded;
        padImages(m_plan, pad, n, copy);
        // an emulated 16-bit precision multiplies rounded fp32
        if (m_direct && ctx.precision != util::Precision::FP32) roundInPlace(copy, n * padded, ctx.precision);
        pad = copy;
      }
      if (m_direct) {
        directConvForward(m_plan, pad, n, m_wGemm, static_cast<int>(filters), bias, m_o.activation,
                          outAt(s0));
        done(s0, n);
        continue;
      }
      const ConvPatches in{&m_plan, pad, n};
      MapsStore out{m_y.data() + s0 * outRows, filters, pixels, bias, m_o.activation};
      gemm(n * pixels, filters, patch, patchesAsA(in), m_packedW, storeToMaps(out), ctx.precision);
    }
  });
  return m_y;
}

const Matrix& Conv2D::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index batch = x.cols(), filters = m_o.filters, patch = m_plan.g.patchSize(), pixels = m_plan.g.outPixels();
  const Eigen::Index outRows = filters * pixels, nParams = paramCount();
  // gy = dy f'(y): dy itself for a linear layer, unless an emulated 16-bit precision rounds it in
  // place. The backward pass follows the path its forward pass chose (m_winogradNow, m_directBf16).
  // (dy * f'(y) as it arrives where the layer after took f'.)
  const Activation activation = m_activationGradientTaken ? Activation::Linear : m_o.activation;
  const bool roundGy = m_direct && !m_directBf16 && ctx.precision != util::Precision::FP32;
  // Feeding a max pooling: dy is the pooling's output gradient, routed to the maxima here a group
  // of samples at a time into the chunk's scratch (f' applied there: the activation is Linear).
  const bool fed = m_pool != nullptr;
  const int fedSamples = fedGroup(outRows);
  const bool ownGy = !fed && (activation != Activation::Linear || roundGy);
  if (ownGy) m_gy.resize(outRows, batch);
  const float* gyAll = ownGy ? m_gy.data() : dy.data();
  const bool transposed = m_direct || hasTransposedForm(m_plan.g);
  const FlippedWeights flipped{m_wGemm, &m_plan.g, static_cast<int>(filters)};
  const int channels = m_plan.g.channels;
  if (needDx) {
    m_dx.resize(x.rows(), batch);
    if (m_winogradNow) {
      m_winograd->prepareInputGradient(m_wGemm, ctx.precision);
    } else if (m_direct) {
      // The input gradient is a direct convolution of gy with the flipped kernel:
      // weights channels x (filters * kh * kw), column-major.
      const std::int64_t kk = static_cast<std::int64_t>(m_plan.g.kernelH) * m_plan.g.kernelW;
      m_flipped.resize(channels * filters * kk);
      for (Eigen::Index f = 0; f < filters; ++f)
        for (int c = 0; c < channels; ++c)
          for (std::int64_t t = 0; t < kk; ++t)
            m_flipped[c + channels * (f * kk + t)] = m_wGemm[f + filters * (c * kk + (kk - 1 - t))];
    } else if (transposed) {
      // dx = gy (*) flipped W: a stride-1 convolution, stored channel-major.
      m_packedW.pack(flippedWeightsAsB(flipped), filters * m_plan.g.kernelH * m_plan.g.kernelW, m_plan.g.channels,
                     ctx.precision);
    } else {
      // dpatches (pixels x patch) = gy (pixels x filters) * W (filters x patch), scattered back.
      const GemmOperand w{m_wGemm, filters, Transpose::No};
      m_packedW.pack(gemmB(w), filters, patch, ctx.precision);
    }
  }
  const int chunks = chunksFor(ctx, 2 * filters * patch * pixels * batch / 64, batch);
  m_chunkGrads.resize(static_cast<std::size_t>(chunks));
  const std::int64_t padded = m_plan.paddedSize(), paddedGy = m_transposedPlan.paddedSize();
  if (needDx && transposed && !m_directBf16) m_paddedGy.resize(paddedGy * batch);
  int perGemm =
      std::min(maxSamplesPerGemm(m_plan), transposed ? maxSamplesPerGemm(m_transposedPlan) : 1 << 20);
  if (fed) {
    perGemm = std::min(perGemm, fedSamples);
    m_chunkOut.resize(static_cast<std::size_t>(chunks));
  }
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    // gy of samples s0 .. s0 + n - 1: routed into the chunk's scratch when fed.
    float* scratch = fed ? chunkScratch(c, perGemm * outRows) : nullptr;
    const auto gyOf = [&](std::ptrdiff_t s0, int n) -> const float* {
      if (!fed) return gyAll + s0 * outRows;
      m_pool->routeSamples(dy, s0, n, scratch);
      return scratch;
    };
    Vector& own = m_chunkGrads[static_cast<std::size_t>(c)];
    if (c > 0 && own.size() != nParams) own.resize(nParams);
    float* grads = c == 0 ? m_dw : own.data();
    if (ownGy)
      activationGradient(activation, m_y.data() + b * outRows, dy.data() + b * outRows, m_gy.data() + b * outRows,
                         outRows * (e - b));
    VectorMap db(grads + filters * patch, m_o.bias ? filters : 0);
    db.setZero();
    const auto addBiasGradient = [&](const float* gy, int n) {  // db += per-filter sums of n samples' gy
      for (int s = 0; s < n && m_o.bias; ++s) db += ConstMatrixMap(gy + s * outRows, pixels, filters).colwise().sum().transpose();
    };
    if (m_winogradNow) {
      const int n = static_cast<int>(e - b);
      const float* gy = gyAll + b * outRows;
      addBiasGradient(gy, n);
      m_winograd->backward(m_padded.data() + b * m_winograd->keptInputSize(), gy, n, grads, false,
                           needDx ? m_dx.data() + b * x.rows() : nullptr, ctx.precision);
      return;
    }
    if (m_directBf16) {  // bf16 hardware: the kept bf16 input; gy padded sample by sample for dx
      const std::ptrdiff_t group = fed ? perGemm : e - b;
      for (std::ptrdiff_t s0 = b; s0 < e; s0 += group) {
        const int n = static_cast<int>(std::min(group, e - s0));
        const float* gy = gyOf(s0, n);
        addBiasGradient(gy, n);
        directConvWeightGradientBf16(m_plan, m_paddedBf16.data() + s0 * padded, n, gy,
                                     static_cast<int>(filters), grads, s0 > b);
        if (needDx)
          directConvForwardBf16(m_transposedPlan, gy, n, m_flipped.data(), channels, nullptr,
                                Activation::Linear, m_dx.data() + s0 * x.rows(), nullptr);
      }
      return;
    }
    for (std::ptrdiff_t s0 = b; s0 < e; s0 += perGemm) {
      const int n = static_cast<int>(std::min<std::ptrdiff_t>(perGemm, e - s0));
      const float* gy = gyOf(s0, n);
      addBiasGradient(gy, n);
      const float* kept =
          (m_readsInput ? x.data() : m_padded.data()) + s0 * padded;  // as the forward pass read it
      const ConvPatches in{&m_plan, kept, n};
      const ChannelMaps g{gy, filters, pixels, n};
      if (m_direct) {  // emulated: the padded input was rounded in the forward pass
        if (roundGy) roundInPlace(fed ? scratch : m_gy.data() + s0 * outRows, n * outRows, ctx.precision);
        directConvWeightGradient(m_plan, kept, n, gy, static_cast<int>(filters), grads, s0 > b);
        if (!needDx) continue;
        float* pad = m_paddedGy.data() + s0 * paddedGy;
        padImages(m_transposedPlan, gy, n, pad);
        directConvForward(m_transposedPlan, pad, n, m_flipped.data(), channels, nullptr, Activation::Linear,
                          m_dx.data() + s0 * x.rows());
        continue;
      }
      // dW (filters x patch) (+)= gy^T (filters x pixels) * patches (pixels x patch).
      GemmC dw;
      dw.data = grads;
      dw.ld = filters;
      dw.accumulate = s0 > b;
      gemm(filters, patch, n * pixels, mapsTransposedAsA(g), patchesAsB(in), dw, ctx.precision);
      if (!needDx) continue;
      float* dx = m_dx.data() + s0 * x.rows();
      if (transposed) {
        float* pad = m_paddedGy.data() + s0 * paddedGy;
        padImages(m_transposedPlan, gy, n, pad);
        const ConvPatches gyPatches{&m_transposedPlan, pad, n};
        const std::int64_t inPixels = static_cast<std::int64_t>(m_plan.g.height) * m_plan.g.width;
        MapsStore store{dx, m_plan.g.channels, inPixels, nullptr, Activation::Linear};
        gemm(n * inPixels, m_plan.g.channels, m_transposedPlan.g.patchSize(), patchesAsA(gyPatches), m_packedW,
             storeToMaps(store), ctx.precision);
      } else {
        std::fill_n(dx, n * x.rows(), 0.0f);
        PatchGradientStore store{&m_plan, dx};
        gemm(n * pixels, patch, filters, mapsAsA(g), m_packedW, storePatchGradient(store), ctx.precision);
      }
    }
  });
  // Partial gradients added in chunk order: identical for the same chunk count.
  VectorMap total(m_dw, nParams);
  for (int c = 1; c < chunks; ++c) total += m_chunkGrads[static_cast<std::size_t>(c)];
  return m_dx;
}

}  // namespace core::nn
