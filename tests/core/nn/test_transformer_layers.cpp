// The transformer's layers: finite-difference gradients (attention with and without the causal
// mask), the attention output against a naive reference, and per-token Dense against a loop.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/nn/activation.h"
#include "core/nn/dense.h"
#include "core/nn/transformer_layers.h"
#include "grad_check.h"

namespace core::nn {
namespace {

using testing::expectGradientsMatch;
using testing::GradCheckOptions;

TEST(TransformerGradients, LayerNormGeluAndPositions) {
  LayerNorm ln("ln");
  expectGradientsMatch(ln, {6, 4, 1});
  Gelu gelu("gelu");
  expectGradientsMatch(gelu, {5, 3, 1});
  PositionEmbedding pos("pos");
  expectGradientsMatch(pos, {4, 5, 1});
}

// LayerNorm sums its gain and bias gradients by blocks of 64 tokens: over several blocks (the
// last one part full) they match finite differences, and 1, 2 or 5 chunks give the same bits
// (the layer is large enough that chunksFor grants them: 5 blocks, 20,480 values).
TEST(TransformerGradients, LayerNormOverSeveralBlocksOfTokens) {
  LayerNorm ln("ln");
  expectGradientsMatch(ln, {5, 50, 1});  // 3 samples of 50 tokens: blocks of 64, 64 and 22
  LayerNorm one("ln");
  const Shape in{64, 80, 1};
  testing::BoundLayer b = testing::bindStandalone(one, in, 3);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (Eigen::Index i = 0; i < b.params.size(); ++i) b.params[i] += 0.1f * normal(rng);
  Matrix x(in.size(), 4), dy(in.size(), 4);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng), dy.data()[i] = normal(rng);
  std::vector<Vector> grads;
  for (int chunks : {1, 2, 5}) {
    PassContext ctx;
    ctx.training = true;
    ctx.chunks = chunks;
    ASSERT_EQ(chunksFor(ctx, x.size() * 8, 5), chunks);  // as LayerNorm::backward asks
    one.forward(x, ctx);
    one.backward(x, dy, false, ctx);
    grads.push_back(b.grads);
  }
  EXPECT_TRUE(grads[0] == grads[1]);
  EXPECT_TRUE(grads[0] == grads[2]);
  EXPECT_GT(grads[0].cwiseAbs().maxCoeff(), 0.0f);
}

TEST(TransformerGradients, PerTokenDense) {
  DenseOptions o;
  o.units = 5;
  o.perToken = true;
  o.init = Init::GptNormal;
  Dense d(o, "qkv");
  expectGradientsMatch(d, {4, 6, 1});
  o.bias = false;
  Dense noBias(o, "head");
  expectGradientsMatch(noBias, {3, 2, 1});
}

// Dense splits its products among the threads by whichever operand is larger: a transformer's
// weights (24 x 40) against many tokens (240) split the tokens, also over two depth panels (400
// features: where AMX pairs strips, each range starts on a pair), a wide layer (300 x 50) on a small
// batch (16) splits its rows. Either way the output and the input gradient are the naive product's
// (tanh applied, the bias added) and 1, 2 or 3 chunks give the same bits, fp32 and bf16.
TEST(TransformerLayers, DenseSplitsItsWorkWithoutChangingABit) {
  struct Case {
    const char* what;
    int units;
    Shape in;
    int batch;
    bool perToken;
  };
  for (const Case& c :
       {Case{"tokens split", 24, {40, 30, 1}, 8, true}, Case{"two depth panels", 24, {400, 9, 1}, 8, true},
        Case{"rows split", 300, {50, 1, 1}, 16, false}})
    for (util::Precision p : {util::Precision::FP32, util::Precision::BF16}) {
      SCOPED_TRACE(std::string(c.what) + " " + util::precisionName(p));
      DenseOptions o;
      o.units = c.units;
      o.perToken = c.perToken;
      o.activation = Activation::Tanh;
      Dense d(o, "dense");
      auto bound = testing::bindStandalone(d, c.in, 5);
      std::mt19937 rng(11);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (Eigen::Index i = 0; i < bound.params.size(); ++i)
        bound.params[i] += 0.1f * normal(rng);  // a bias too
      const Eigen::Index k = c.in.c, steps = c.perToken ? c.in.h : 1, inputs = c.perToken ? k : c.in.size();
      const Eigen::Index tokens = steps * c.batch;
      Matrix x(c.in.size(), c.batch), dy(static_cast<Eigen::Index>(c.units) * steps, c.batch);
      for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
      for (Eigen::Index i = 0; i < dy.size(); ++i) dy.data()[i] = normal(rng);
      std::vector<Matrix> ys, dxs;
      for (int chunks : {1, 2, 3}) {
        PassContext ctx;
        ctx.training = true;
        ctx.chunks = chunks;
        ctx.precision = p;
        ASSERT_EQ(chunksFor(ctx, 2 * c.units * inputs * tokens / 8, tokens), chunks);  // the split is granted
        ys.push_back(d.forward(x, ctx));
        dxs.push_back(d.backward(x, dy, true, ctx));
      }
      EXPECT_TRUE(ys[0] == ys[1] && ys[0] == ys[2]);
      EXPECT_TRUE(dxs[0] == dxs[1] && dxs[0] == dxs[2]);
      if (p != util::Precision::FP32) continue;
      const ConstMatrixMap w(bound.params.data(), c.units, inputs);
      const ConstVectorMap b(bound.params.data() + c.units * inputs, c.units);
      const ConstMatrixMap xt(x.data(), inputs, tokens), dyt(dy.data(), c.units, tokens);
      const Matrix y = ((w * xt).colwise() + b).array().tanh().matrix();
      const Matrix g = dyt.array() * (1.0f - y.array().square());
      EXPECT_LT((ConstMatrixMap(ys[0].data(), c.units, tokens) - y).cwiseAbs().maxCoeff(), 1e-4f);
      EXPECT_LT((ConstMatrixMap(dxs[0].data(), inputs, tokens) - w.transpose() * g).cwiseAbs().maxCoeff(), 1e-4f);
    }
}

TEST(TransformerGradients, AttentionWithAndWithoutTheCausalMask) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    SelfAttention a(2, causal, "attn");
    GradCheckOptions o;
    o.step = 5e-3f;
    expectGradientsMatch(a, {3 * 4, 5, 1}, o);  // width 4, 2 heads of 2, 5 steps
  }
}

// softmax(q_i . k_j / sqrt(hd)) v_j summed over j (j <= i when causal), head by head.
Matrix naiveAttention(const Matrix& x, int d, int steps, int heads, bool causal) {
  const int hd = d / heads;
  Matrix y(d * steps, x.cols());
  for (Eigen::Index b = 0; b < x.cols(); ++b)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < steps; ++i) {
        std::vector<double> w(steps, 0.0);
        double top = -1e300, sum = 0;
        for (int j = 0; j < (causal ? i + 1 : steps); ++j) {
          double s = 0;
          for (int e = 0; e < hd; ++e) s += double(x(i * 3 * d + h * hd + e, b)) * x(j * 3 * d + d + h * hd + e, b);
          w[j] = s / std::sqrt(double(hd));
          top = std::max(top, w[j]);
        }
        for (int j = 0; j < (causal ? i + 1 : steps); ++j) sum += (w[j] = std::exp(w[j] - top));
        for (int e = 0; e < hd; ++e) {
          double o = 0;
          for (int j = 0; j < (causal ? i + 1 : steps); ++j) o += w[j] / sum * x(j * 3 * d + 2 * d + h * hd + e, b);
          y(i * d + h * hd + e, b) = static_cast<float>(o);
        }
      }
  return y;
}

TEST(TransformerGradients, PatchesClassTokenAndTakeToken) {
  Patchify p(2, "patches");
  expectGradientsMatch(p, {2, 4, 6});
  ClassToken cls("cls");
  expectGradientsMatch(cls, {3, 4, 1});
  TakeToken take(1, "take");
  expectGradientsMatch(take, {3, 4, 1});
}

TEST(TransformerLayers, PatchesFollowTheViTOrder) {
  // 1x8x8 image, 4x4 patches: token 2*py+px, feature 4*dy+dx (the peer's reshape/permute).
  Patchify p(4, "patches");
  p.build({1, 8, 8});
  EXPECT_EQ(p.outShape(), (Shape{16, 4, 1}));
  Matrix x(64, 1);
  for (int i = 0; i < 64; ++i) x(i, 0) = static_cast<float>(i);  // pixel (y, x) holds 8y + x
  PassContext ctx;
  const Matrix& y = p.forward(x, ctx);
  for (int py = 0; py < 2; ++py)
    for (int px = 0; px < 2; ++px)
      for (int dy = 0; dy < 4; ++dy)
        for (int dx = 0; dx < 4; ++dx)
          EXPECT_EQ(y((2 * py + px) * 16 + 4 * dy + dx, 0), static_cast<float>(8 * (4 * py + dy) + 4 * px + dx));
}

TEST(TransformerLayers, AttentionMatchesANaiveReference) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int d = 8, steps = 9, heads = 4;
  Matrix x(3 * d * steps, 3);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  for (bool causal : {false, true}) {
    SelfAttention a(heads, causal, "attn");
    a.build({3 * d, steps, 1});
    PassContext ctx;
    ctx.chunks = 3;
    const Matrix y = a.forward(x, ctx);
    const Matrix ref = naiveAttention(x, d, steps, heads, causal);
    EXPECT_LT((y - ref).cwiseAbs().maxCoeff(), 1e-5f) << (causal ? "causal" : "full");
  }
}

// Mixed precision: the attention's products run on the engine's GEMM with bf16 operands, as
// every other layer's do. The output stays within bf16's error of the fp32 reference, and is
// not the fp32 result (the rounding happened).
TEST(TransformerLayers, AttentionRoundsItsOperandsUnderBf16) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int d = 64, steps = 32, heads = 2;
  Matrix x(3 * d * steps, 2);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  SelfAttention a(heads, true, "attn");
  a.build({3 * d, steps, 1});
  PassContext fp32;
  const Matrix exact = a.forward(x, fp32);
  PassContext bf16;
  bf16.precision = core::util::Precision::BF16;
  const Matrix rounded = a.forward(x, bf16);
  const float diff = (rounded - exact).cwiseAbs().maxCoeff();
  EXPECT_GT(diff, 1e-5f);   // the operands were rounded
  EXPECT_LT(diff, 5e-2f);   // ...to bf16 (8 bits of mantissa), not worse
  const Matrix ref = naiveAttention(x, d, steps, heads, true);
  EXPECT_LT((exact - ref).cwiseAbs().maxCoeff(), 1e-4f);
}

TEST(TransformerLayers, PerTokenDenseIsTheSameWeightOnEveryStep) {
  DenseOptions o;
  o.units = 3;
  o.perToken = true;
  Dense d(o, "proj");
  const auto bound = testing::bindStandalone(d, {4, 5, 1}, 3);
  EXPECT_EQ(d.paramCount(), 3 * 4 + 3);
  EXPECT_EQ(d.outShape(), (Shape{3, 5, 1}));
  Matrix x = Matrix::Random(4 * 5, 2);
  PassContext ctx;
  const Matrix y = d.forward(x, ctx);
  const ConstMatrixMap w(bound.params.data(), 3, 4);
  const ConstVectorMap b(bound.params.data() + 12, 3);
  for (int s = 0; s < 2; ++s)
    for (int t = 0; t < 5; ++t) {
      const Vector expected = w * x.col(s).segment(t * 4, 4) + b;
      EXPECT_LT((y.col(s).segment(t * 3, 3) - expected).cwiseAbs().maxCoeff(), 1e-5f);
    }
}

}  // namespace
}  // namespace core::nn
