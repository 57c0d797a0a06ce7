// Mixed precision: GEMM inputs rounded to bf16 / fp16 / tf32, accumulation in fp32.
#include <gtest/gtest.h>

#include <cmath>
#include <bit>
#include <limits>
#include <random>

#include "core/nn/conv2d.h"
#include "core/nn/dense.h"
#include "core/nn/depthwise_conv2d.h"
#include "core/nn/direct_conv.h"
#include "core/nn/lstm.h"
#include "grad_check.h"
#include "core/nn/gemm_precision.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"

namespace core::nn {
namespace {

using util::Precision;

TEST(Precision, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(roundToPrecision(1.0f, Precision::BF16), 1.0f);
  EXPECT_EQ(roundToPrecision(1.0f + 0x1p-8f, Precision::BF16), 1.0f);              // tie -> even (down)
  EXPECT_EQ(roundToPrecision(1.0f + 3 * 0x1p-8f, Precision::BF16), 1.0f + 0x1p-6f);  // tie -> even (up)
  EXPECT_EQ(roundToPrecision(1.0f + 0x1p-8f + 0x1p-12f, Precision::BF16), 1.0f + 0x1p-7f);
  EXPECT_EQ(roundToPrecision(3.14159265f, Precision::BF16), 3.140625f);
  EXPECT_EQ(roundToPrecision(-3.14159265f, Precision::BF16), -3.140625f);
  EXPECT_EQ(roundToPrecision(3.39e38f, Precision::BF16), 0x1.fep127f);                           // bf16 max
  EXPECT_EQ(roundToPrecision(3.4e38f, Precision::BF16), std::numeric_limits<float>::infinity());  // beyond it
  EXPECT_TRUE(std::isnan(roundToPrecision(std::nanf(""), Precision::BF16)));
}

TEST(Precision, Float16RoundsAndOverflows) {
  EXPECT_EQ(roundToPrecision(1.0f + 0x1p-11f, Precision::FP16), 1.0f);  // tie -> even
  EXPECT_EQ(roundToPrecision(1.0f + 3 * 0x1p-11f, Precision::FP16), 1.0f + 0x1p-9f);
  EXPECT_EQ(roundToPrecision(0.1f, Precision::FP16), 0.0999755859375f);
  EXPECT_EQ(roundToPrecision(65504.0f, Precision::FP16), 65504.0f);
  EXPECT_EQ(roundToPrecision(70000.0f, Precision::FP16), std::numeric_limits<float>::infinity());
  EXPECT_EQ(roundToPrecision(1e-8f, Precision::FP16), 0.0f);           // below half the smallest subnormal
  EXPECT_EQ(roundToPrecision(0x1p-24f, Precision::FP16), 0x1p-24f);   // smallest subnormal survives
}

TEST(Precision, Tf32KeepsTenMantissaBits) {
  EXPECT_EQ(roundToPrecision(1.0f + 0x1p-11f, Precision::TF32), 1.0f);
  EXPECT_EQ(roundToPrecision(1.0f + 0x1p-10f, Precision::TF32), 1.0f + 0x1p-10f);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (int i = 0; i < 1000; ++i) {  // 13 low bits cleared, within half a tf32 step
    const float v = u(rng), r = roundToPrecision(v, Precision::TF32);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(r) & 0x1fffu, 0u);
    EXPECT_LE(std::abs(r - v), std::ldexp(std::abs(v), -11));
  }
  EXPECT_EQ(roundToPrecision(0.3f, Precision::FP32), 0.3f);
}

TEST(Precision, DenseMultipliesRoundedInputsAndWeights) {
  Network net("p", Shape{3, 1, 1}, 2);
  net.add(std::make_unique<Dense>(DenseOptions{2, Activation::Linear, false, Init::GlorotUniform}));
  net.initialize(0);
  net.params() << 1.0f + 0x1p-9f, 0.1f, 3.14159265f, -2.0f, 1.0f / 3, 0.5f;  // column-major 2x3
  Eigen::MatrixXf x(3, 1);
  x << 1.0f + 0x1p-9f, 0.3f, 7.1f;
  auto logits = [&](Precision p) {
    net.setPrecision(p);
    const Eigen::MatrixXf prob = net.predict(x);
    return std::log(prob(0, 0) / prob(1, 0));  // logit difference z0 - z1
  };
  auto expected = [&](Precision p) {
    const auto r = [&](float v) { return static_cast<double>(roundToPrecision(v, p)); };
    const Eigen::VectorXf& w = net.params();
    const double z0 = r(w[0]) * r(x(0)) + r(w[2]) * r(x(1)) + r(w[4]) * r(x(2));
    const double z1 = r(w[1]) * r(x(0)) + r(w[3]) * r(x(1)) + r(w[5]) * r(x(2));
    return z0 - z1;
  };
  for (Precision p : {Precision::FP32, Precision::BF16, Precision::FP16}) EXPECT_NEAR(logits(p), expected(p), 1e-5) << precisionName(p);
  EXPECT_GT(std::abs(expected(Precision::BF16) - expected(Precision::FP32)), 1e-3);  // the rounding is visible
  EXPECT_EQ(net.precision(), Precision::FP16);
  // Master weights stay fp32.
  EXPECT_EQ(net.params()[0], 1.0f + 0x1p-9f);
}

// `layer` bound on its own, and a fixed input and output gradient for 6 samples.
struct FixedPass {
  testing::BoundLayer b;
  Matrix x, dy;
};
FixedPass fixedPass(Layer& layer, Shape in) {
  FixedPass f{testing::bindStandalone(layer, in, 3), Matrix(in.size(), 6), Matrix(layer.outShape().size(), 6)};
  std::mt19937 rng(5);
  std::normal_distribution<float> n(0, 1);
  for (Eigen::Index i = 0; i < f.x.size(); ++i) f.x.data()[i] = n(rng);
  for (Eigen::Index i = 0; i < f.dy.size(); ++i) f.dy.data()[i] = n(rng);
  return f;
}

// A layer in bf16 mode computes exactly what fp32 computes on pre-rounded inputs, weights
// and output gradients: the rounding is applied to every GEMM input, forward and backward.
void expectRoundedGemmInputs(Layer& layer, Shape in, Precision p) {
  FixedPass f = fixedPass(layer, in);
  testing::BoundLayer& b = f.b;
  const Matrix& x = f.x;
  const Matrix& dy = f.dy;
  const Vector master = b.params;
  PassContext ctx;
  ctx.training = true;
  ctx.chunks = 2;
  ctx.precision = p;
  // Mixed precision: the GEMM weights are a rounded copy (the network keeps it).
  Vector rounded = master;
  roundInPlace(rounded.data(), rounded.size(), p);
  ParamBinder mixed(b.params.data(), b.grads.data(), rounded.data(), b.state.data());
  layer.bind(mixed);
  const Matrix yMixed = layer.forward(x, ctx);
  const Matrix dxMixed = layer.backward(x, dy, true, ctx);
  const Vector gMixed = b.grads;

  Matrix xr = x, dyr = dy;
  roundInPlace(xr.data(), xr.size(), p);
  roundInPlace(dyr.data(), dyr.size(), p);
  b.params = rounded;
  ParamBinder plain(b.params.data(), b.grads.data(), b.params.data(), b.state.data());
  layer.bind(plain);
  ctx.precision = Precision::FP32;
  const Matrix yRef = layer.forward(xr, ctx);
  const Matrix dxRef = layer.backward(xr, dyr, true, ctx);
  EXPECT_LT((yMixed - yRef).cwiseAbs().maxCoeff(), 1e-5f) << layer.name();
  EXPECT_LT((dxMixed - dxRef).cwiseAbs().maxCoeff(), 1e-5f) << layer.name();
  EXPECT_LT((gMixed - b.grads).cwiseAbs().maxCoeff(), 1e-4f) << layer.name();
  // ... and differs from plain fp32 on the unrounded values.
  b.params = master;
  layer.forward(x, ctx);
  EXPECT_GT((yMixed - layer.forward(x, ctx)).cwiseAbs().maxCoeff(), 1e-4f) << layer.name();
}

TEST(Precision, LayersRoundEveryGemmInput) {
  for (Precision p : {Precision::BF16, Precision::FP16}) {
    Dense dense(DenseOptions{5, Activation::Linear, false, Init::GlorotUniform}, "dense");
    expectRoundedGemmInputs(dense, {7, 1, 1}, p);
    for (ConvAlgorithm a : {ConvAlgorithm::Gemm, ConvAlgorithm::Direct}) {
      Conv2DOptions o;
      o.filters = 4;
      o.bias = false;
      o.padding = Padding::same();
      o.algorithm = a;
      Conv2D conv(o, a == ConvAlgorithm::Gemm ? "conv_gemm" : "conv_direct");
      expectRoundedGemmInputs(conv, {3, 5, 6}, p);
    }
    Conv2DOptions strided;
    strided.filters = 4;
    strided.bias = false;
    strided.strideH = strided.strideW = 2;
    Conv2D conv2(strided, "conv_strided");
    expectRoundedGemmInputs(conv2, {20, 7, 7}, p);
    DepthwiseConv2D depthwise(DepthwiseConv2DOptions{}, "depthwise");
    expectRoundedGemmInputs(depthwise, {3, 5, 5}, p);
  }
}

// One bf16 training pass of `layer` on fixed data: output, input gradient, parameter gradients.
struct Bf16Pass {
  Matrix y, dx;
  Vector grads;
};
Bf16Pass bf16Pass(Layer& layer, Shape in) {
  FixedPass f = fixedPass(layer, in);
  testing::BoundLayer& b = f.b;
  std::mt19937 rng(6);
  std::normal_distribution<float> n(0, 1);
  for (Eigen::Index i = 0; i < b.params.size(); ++i) b.params[i] += 0.1f * n(rng);  // a bias away from 0
  Vector rounded = b.params;
  roundInPlace(rounded.data(), rounded.size(), Precision::BF16);
  ParamBinder mixed(b.params.data(), b.grads.data(), rounded.data(), b.state.data());
  layer.bind(mixed);
  PassContext ctx;
  ctx.training = true;
  ctx.chunks = 2;
  ctx.precision = Precision::BF16;
  Bf16Pass out;
  out.y = layer.forward(f.x, ctx);
  out.dx = layer.backward(f.x, f.dy, true, ctx);
  out.grads = b.grads;
  return out;
}

// Where the CPU has AVX512_BF16, a direct convolution in bf16 multiplies bf16 pairs in hardware
// (channel pairs forward, pixel pairs for the weight gradient) and still computes what fp32 does
// on the rounded values: odd channel counts (a zero partner), one channel, a filter group and
// one more, rows longer than one vector of pixel pairs with a partial last one. With an
// activation and a bias (gy is then the layer's own copy, rounded after the derivative, and the
// bias gradient sums it unrounded) it computes what the emulation (fp32 kernels on rounded
// values, ACCELLAB_GEMM_ISA=avx512) computes.
TEST(Precision, DirectConvolutionOnBf16HardwareMatchesRoundedFp32) {
  if (!directConvOnBf16Hardware(Precision::BF16)) GTEST_SKIP() << "this CPU multiplies bf16 in fp32 (emulated): covered above";
  struct Case {
    int filters, kernel;
    Padding padding;
    Shape in;
  };
  // The last three take filters as lanes (rows of 34, 9 and 11 pixels: 71%, 56% and 69% of their
  // vectors), the last two with odd rows, whose last pixel the weight gradient pairs with a zero;
  // the last with two vectors of filters and 16 channels (its input gradient too).
  const Case cases[] = {{9, 3, Padding::same(), {6, 9, 37}},
                        {4, 5, Padding::valid(), {1, 8, 40}},
                        {16, 3, Padding::explicitPad(1, 1), {5, 4, 34}},
                        {16, 5, Padding::valid(), {3, 7, 13}},
                        {32, 3, Padding::same(), {16, 3, 11}}};
  auto make = [](const Case& c, Activation activation, bool bias) {
    Conv2DOptions o;
    o.filters = c.filters;
    o.kernelH = o.kernelW = c.kernel;
    o.activation = activation;
    o.bias = bias;
    o.padding = c.padding;
    o.algorithm = ConvAlgorithm::Direct;
    return std::make_unique<Conv2D>(o, "conv_direct_bf16");
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in.c * 1000 + c.in.w);
    // a bias gradient sums the unrounded output gradient (no GEMM input): none here
    expectRoundedGemmInputs(*make(c, Activation::Linear, false), c.in, Precision::BF16);
    const Bf16Pass hardware = bf16Pass(*make(c, Activation::Tanh, true), c.in);
    const GemmIsa was = limitGemmIsa(GemmIsa::Avx512);  // emulated: fp32 kernels on rounded values
    ASSERT_FALSE(directConvOnBf16Hardware(Precision::BF16));
    const Bf16Pass emulated = bf16Pass(*make(c, Activation::Tanh, true), c.in);
    limitGemmIsa(was);
    EXPECT_LT((hardware.y - emulated.y).cwiseAbs().maxCoeff(), 1e-5f);
    EXPECT_LT((hardware.dx - emulated.dx).cwiseAbs().maxCoeff(), 1e-5f);
    EXPECT_LT((hardware.grads - emulated.grads).cwiseAbs().maxCoeff(), 1e-4f);
  }
}

TEST(Precision, Bf16TrainingStepStaysCloseToFp32) {
  auto net = buildModel("mlp", ModelInput{{1, 28, 28}, 10, 0});
  net->initialize(4);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(0, 1);
  Eigen::MatrixXf x(784, 16);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = u(rng);
  std::vector<int> y(16);
  for (int i = 0; i < 16; ++i) y[static_cast<std::size_t>(i)] = i % 10;
  const double fp32 = net->trainStep(x, y, 1).loss;
  const Eigen::VectorXf g32 = net->grads();
  net->setPrecision(Precision::BF16);
  const double bf16 = net->trainStep(x, y, 1).loss;
  const Eigen::VectorXf g16 = net->grads();
  EXPECT_NE(fp32, bf16);
  EXPECT_NEAR(fp32, bf16, 0.01 * fp32);
  // ReLU units whose sign flips under rounding move a few percent of the gradient.
  EXPECT_LT((g32 - g16).norm(), 0.1 * g32.norm());
  net->setPrecision(Precision::FP32);
  EXPECT_EQ(net->trainStep(x, y, 1).loss, fp32);
}

// The LSTM's products run through the engine's GEMM at the step's precision (its hidden state
// rounded at every step, so no pre-rounded fp32 twin exists): a bf16 step differs from fp32,
// stays close to it, both directions' gradients included, and fp32 comes back bit for bit.
TEST(Precision, LstmBf16StepStaysCloseToFp32) {
  Network net("lstm", Shape{8, 6, 1}, 3);
  net.add(std::make_unique<LSTM>(16, 2, "lstm"));
  net.add(std::make_unique<Dense>(DenseOptions{3, Activation::Linear, true, Init::GlorotUniform}));
  net.initialize(7);
  std::mt19937 rng(3);
  std::normal_distribution<float> n(0, 1);
  Eigen::MatrixXf x(48, 10);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = n(rng);
  std::vector<int> y(10);
  for (int i = 0; i < 10; ++i) y[static_cast<std::size_t>(i)] = i % 3;
  const double fp32 = net.trainStep(x, y, 1).loss;
  const Eigen::VectorXf g32 = net.grads();
  net.setPrecision(Precision::BF16);
  const double bf16 = net.trainStep(x, y, 1).loss;
  const Eigen::VectorXf g16 = net.grads();
  EXPECT_NE(fp32, bf16);
  EXPECT_NEAR(fp32, bf16, 0.01 * fp32);
  EXPECT_LT((g32 - g16).norm(), 0.05 * g32.norm());
  EXPECT_GT((g32 - g16).norm(), 1e-6 * g32.norm());
  net.setPrecision(Precision::FP32);
  EXPECT_EQ(net.trainStep(x, y, 1).loss, fp32);
}

}  // namespace
}  // namespace core::nn
