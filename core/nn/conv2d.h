#pragma once
// 2-D convolution (cross-correlation, as every framework), groups = 1, with optional bias and
// fused activation. Weights: filters x (channels * kh * kw), i.e. PyTorch's OIHW.
// Computed as implicit GEMMs over a chunk of samples (core/nn/conv_gemm.h): patches are
// packed straight from the input, outputs stored channel-major with bias and activation.
#include "core/nn/activation.h"
#include "core/nn/conv_geometry.h"
#include "core/nn/gemm.h"
#include "core/nn/init.h"
#include "core/nn/layer.h"
#include "core/nn/padding.h"
#include "core/nn/winograd.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace core::nn {

class MaxPool2D;  // pooling.h

// How the layer computes: GEMMs over packed patches; direct loops (stride 1) that win when
// there are few channels; Winograd F(4x4, 3x3), F(2x2, 3x3) or F(2x2, 5x5) (stride 1)
// with 4x, 2.25x or 2.8x fewer multiplications. Auto picks by shape; a forced algorithm that
// does not apply falls back.
enum class ConvAlgorithm { Auto, Gemm, Direct, Winograd };

struct Conv2DOptions {
  int filters = 1;
  int kernelH = 3, kernelW = 3;
  int strideH = 1, strideW = 1;
  Padding padding = Padding::valid();
  bool bias = true;
  Activation activation = Activation::Linear;
  Init init = Init::GlorotUniform;
  ConvAlgorithm algorithm = ConvAlgorithm::Auto;
};

class Conv2D final : public Layer {
public:
  explicit Conv2D(Conv2DOptions o, std::string name = {});
  std::int64_t paramCount() const override;
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;
  const ConvGeometry& geometry() const { return m_plan.g; }
  ConvAlgorithm algorithm() const { return m_direct ? ConvAlgorithm::Direct : m_winograd ? ConvAlgorithm::Winograd : ConvAlgorithm::Gemm; }
  Activation ownActivation() const override { return m_o.activation; }
  void setActivationGradientTaken(bool taken) override { m_activationGradientTaken = taken; }
  // A direct convolution pools its output through the max pooling after it as it computes it, a
  // few samples at a time (the group stays in cache), where it does not need that output itself
  // in the backward pass (the pooling took its activation's gradient, or it has none); there it
  // routes the pooled gradient back to the maxima the same way. Its forward() then returns an
  // empty matrix: its output exists only as the pooling's.
  bool takeFollowingLayer(Layer& next) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  // Chunk `chunk`'s scratch of `floats` floats (m_chunkOut, sized to the chunks before they run).
  float* chunkScratch(int chunk, std::int64_t floats);

  Conv2DOptions m_o;
  ConvPlan m_plan;            // input patches (forward, weight gradient)
  ConvPlan m_transposedPlan;  // output-gradient patches (input gradient, stride 1)
  float* m_w = nullptr;
  float* m_dw = nullptr;
  const float* m_wGemm = nullptr;
  PackedB m_packedW;              // the weights packed once per pass, shared by the chunks
  std::vector<Vector> m_chunkGrads;  // chunk > 0: partial weight + bias gradients
  Vector m_padded;  // the input, zero-padded (kept for the weight gradient; Winograd: its tile grid)
  std::vector<std::uint16_t> m_paddedBf16;  // the same in bf16, where bf16 runs on hardware
  Vector m_paddedGy;              // the output gradient, padded for the transposed convolution
  Vector m_flipped;               // direct input gradient: flipped, transposed weights
  bool m_direct = false;
  bool m_directBf16 = false;  // the last forward pass ran the direct convolution in bf16 hardware
  std::unique_ptr<WinogradConv> m_winograd;
  bool m_winogradNow = false;  // the last forward pass ran Winograd (not on AMX bf16)
  bool m_readsInput = false;   // the last forward pass read x itself: padding would have copied it unchanged
  Matrix m_gy;                    // dy * f'(y)
  bool m_activationGradientTaken = false;  // the layer after applies f' (dy arrives as dy * f'(y))
  MaxPool2D* m_pool = nullptr;             // the max pooling this layer feeds (takeFollowingLayer)
  std::vector<Vector> m_chunkOut;          // per chunk: a group's output (forward) or gradient (backward)
};

}  // namespace core::nn
