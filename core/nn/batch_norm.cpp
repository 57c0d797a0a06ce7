#include "core/nn/batch_norm.h"

#include <algorithm>
#include <cmath>

#include "core/nn/activation.h"
#include "core/util/parallel.h"
#include "core/util/numbers.h"

namespace core::nn {
namespace {

// The normalised value, as one fma: the forward pass and the backward pass's ReLU mask compute
// it alike, so the mask is exactly where the output is positive.
inline float affine(float x, float scale, float shift) { return std::fma(x, scale, shift); }
inline bool reluPasses(float x, float scale, float shift) { return affine(x, scale, shift) > 0.0f; }

// n values of x normalised into y, with the ReLU layer's own function where it was taken (NaN
// and -0 become +0), in one pass (GCC vectorises both loops).
void normalise(const float* x, float* y, std::int64_t n, float scale, float shift, bool relu) {
  if (relu)
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = affine(x[i], scale, shift);
      y[i] = v > 0.0f ? v : 0.0f;
    }
  else
    for (std::int64_t i = 0; i < n; ++i) y[i] = affine(x[i], scale, shift);
}

// y = fma(x, scale, shift) per channel (scale.size() channels of p values a sample), with the ReLU
// where taken. Each thread takes a range of samples and streams their columns in order.
void normaliseBatch(const Matrix& x, std::int64_t p, const Vector& scale, const Vector& shift, bool relu,
                    int chunks, Matrix& y) {
  const Eigen::Index rows = x.rows();
  util::parallelChunks(x.cols(), chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (Eigen::Index ch = 0; ch < scale.size(); ++ch)
        normalise(x.data() + s * rows + ch * p, y.data() + s * rows + ch * p, p, scale[ch], shift[ch], relu);
  });
}

// Row `row` of the per-sample partial sums (one column a sample), added in double in sample order.
double sumAcrossSamples(const Matrix& partials, Eigen::Index row) {
  double total = 0;
  for (Eigen::Index s = 0; s < partials.cols(); ++s) total += static_cast<double>(partials(row, s));
  return total;
}

}  // namespace

BatchNorm::BatchNorm(BatchNormOptions o, std::string name) : Layer(LayerKind::BatchNorm, std::move(name)), m_o(o) {
  if (!(o.epsilon > 0)) fail("epsilon must be positive");
  if (!(o.momentum >= 0 && o.momentum < 1)) fail("momentum must be in [0, 1), got " + util::shortNumber(o.momentum));
}

std::int64_t BatchNorm::paramCount() const { return (m_o.scale ? channels() : 0) + (m_o.center ? channels() : 0); }
std::int64_t BatchNorm::stateCount() const { return 2 * channels(); }

void BatchNorm::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(inShape().size());
  s.forwardFlops = 5 * n;   // mean, variance, normalise, scale and shift
  s.backwardFlops = 8 * n;  // two reductions and the input gradient
  s.savedBytes = 4.0 * (n + 2 * static_cast<double>(channels()));  // output + batch statistics
  out.push_back(s);
}

void BatchNorm::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_params = s.params;
  m_grads = s.grads;
  m_state = binder.takeState(stateCount());
}

void BatchNorm::initParams(std::uint64_t) {
  const Eigen::Index c = channels();
  if (m_o.scale) VectorMap(m_params, c).setOnes();
  if (m_o.center) VectorMap(m_params + (m_o.scale ? c : 0), c).setZero();
  runningMean().setZero();
  runningVariance().setOnes();
}

const Matrix& BatchNorm::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index c = channels(), batch = x.cols(), rows = x.rows();
  const std::int64_t p = pixels();
  const float* gamma = m_o.scale ? m_params : nullptr;
  const float* beta = m_o.center ? m_params + (m_o.scale ? c : 0) : nullptr;
  m_y.resize(rows, batch);
  const int chunks = chunksFor(ctx, x.size(), batch);
  if (!ctx.training && ctx.statsPass < 0) {  // the running statistics' map, kept apart from the batch's
    m_runningScale.resize(c);
    m_runningShift.resize(c);
    for (Eigen::Index ch = 0; ch < c; ++ch) {
      const float inv = 1.0f / std::sqrt(m_state[c + ch] + m_o.epsilon);
      const float a = (gamma ? gamma[ch] : 1.0f) * inv;
      m_runningScale[ch] = a;
      m_runningShift[ch] = (beta ? beta[ch] : 0.0f) - m_state[ch] * a;
    }
    normaliseBatch(x, p, m_runningScale, m_runningShift, m_relu, chunks, m_y);
    return m_y;
  }
  m_mean.resize(c);
  m_invStd.resize(c);
  m_scale.resize(c);
  m_shift.resize(c);
  const double count = static_cast<double>(p) * static_cast<double>(batch);
  // Both moments in one pass, around a pivot per channel (its first value) so the variance does
  // not cancel: sums in float per sample and channel (vectorised), then in double across samples
  // in sample order, so the result is identical for any split. Each thread takes a range of
  // samples and streams their columns in order.
  m_pivot.resize(c);
  for (Eigen::Index ch = 0; ch < c; ++ch) m_pivot[ch] = batch > 0 ? x(ch * p, 0) : 0.0f;
  m_partials.resize(2 * c, batch);  // per sample: [sums of every channel] [sums of squares]
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (Eigen::Index ch = 0; ch < c; ++ch) {
        const auto v = x.col(s).segment(ch * p, p).array() - m_pivot[ch];
        m_partials(ch, s) = v.sum();
        m_partials(c + ch, s) = v.square().sum();
      }
  });
  for (Eigen::Index ch = 0; ch < c; ++ch) {
    const double sum = sumAcrossSamples(m_partials, ch), sq = sumAcrossSamples(m_partials, c + ch);
    const double shifted = sum / count;
    const double mean = m_pivot[ch] + shifted;
    const double var = std::max(0.0, sq / count - shifted * shifted);
    const float inv = static_cast<float>(1.0 / std::sqrt(var + m_o.epsilon));
    m_mean[ch] = static_cast<float>(mean);
    m_invStd[ch] = inv;
    // Training: Keras' moving average. A statistics pass: the running average of the passes.
    const float m = ctx.training ? m_o.momentum
                                 : static_cast<float>(ctx.statsPass) / static_cast<float>(ctx.statsPass + 1);
    m_state[ch] = m * m_state[ch] + (1 - m) * static_cast<float>(mean);
    const double unbiased = count > 1 ? var * count / (count - 1) : var;
    m_state[c + ch] = m * m_state[c + ch] + (1 - m) * static_cast<float>(unbiased);
    const float a = (gamma ? gamma[ch] : 1.0f) * inv;
    m_scale[ch] = a;  // kept: the backward pass recomputes the ReLU's mask from x with them
    m_shift[ch] = (beta ? beta[ch] : 0.0f) - static_cast<float>(mean) * a;
  }
  normaliseBatch(x, p, m_scale, m_shift, m_relu, chunks, m_y);
  return m_y;
}

const Matrix& BatchNorm::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index c = channels(), batch = x.cols();
  const std::int64_t p = pixels();
  const float* gamma = m_o.scale ? m_params : nullptr;
  float* dGamma = m_o.scale ? m_grads : nullptr;
  float* dBeta = m_o.center ? m_grads + (m_o.scale ? c : 0) : nullptr;
  const double count = static_cast<double>(p) * static_cast<double>(batch);
  if (needDx) m_dx.resize(x.rows(), batch);
  const int chunks = chunksFor(ctx, x.size(), batch);
  const auto xOf = [&](Eigen::Index s, Eigen::Index ch) { return x.data() + s * x.rows() + ch * p; };
  const auto dyOf = [&](Eigen::Index s, Eigen::Index ch) { return dy.data() + s * dy.rows() + ch * p; };
  // Both sums, per sample and channel in float (vectorised) and across samples in double in
  // sample order (identical for any split); sample by sample, as the forward pass streams.
  m_partials.resize(2 * c, batch);  // per sample: [sums of dy] [sums of dy (x - mean)]
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    // With a ReLU taken, dy is the gradient after it: masked where the output is zero, into a
    // per-thread segment (a plain loop GCC vectorises; Eigen 3.4's select is element by element).
    // The mask comes from x, by the forward pass's own fma (reluPasses), not from the output:
    // one stream less to read in a pass bound by memory.
    // An Eigen vector, aligned as the matrices are: a vectorised sum's order follows its
    // start's alignment, and a run must add in the same order every time (malloc's 16 bytes
    // varied between runs).
    thread_local Vector masked;
    if (m_relu) masked.resize(p);
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (Eigen::Index ch = 0; ch < c; ++ch) {
        const float* xs = xOf(s, ch);
        const float* d = dyOf(s, ch);
        if (m_relu) {
          const float a = m_scale[ch], shift = m_shift[ch];
          float* out = masked.data();
          for (std::int64_t i = 0; i < p; ++i) out[i] = reluPasses(xs[i], a, shift) ? d[i] : 0.0f;
          d = out;
        }
        const ConstVectorMap dv(d, p);  // named: an expression must not outlive it
        m_partials(ch, s) = dv.sum();
        m_partials(c + ch, s) = (dv.array() * (ConstVectorMap(xs, p).array() - m_mean[ch])).sum();
      }
  });
  // dx = g inv (dy - mean(dy) - xhat mean(dy xhat)), per channel one affine map of dy and
  // x - mean: dx = kDy dy + (kX (x - mean) + k0).
  m_dxCoeffs.resize(3, c);  // per channel: kDy, kX, k0
  for (Eigen::Index ch = 0; ch < c; ++ch) {
    const double sumDy = sumAcrossSamples(m_partials, ch), sumDyXc = sumAcrossSamples(m_partials, c + ch);
    const double inv = m_invStd[ch];
    const double sumDyXhat = sumDyXc * inv;
    if (dGamma) dGamma[ch] = static_cast<float>(sumDyXhat);
    if (dBeta) dBeta[ch] = static_cast<float>(sumDy);
    if (!needDx) continue;
    const double g = gamma ? gamma[ch] : 1.0;
    const double meanDy = sumDy / count, meanDyXhat = sumDyXhat / count;
    m_dxCoeffs(0, ch) = static_cast<float>(g * inv);
    m_dxCoeffs(1, ch) = static_cast<float>(-g * inv * inv * meanDyXhat);
    m_dxCoeffs(2, ch) = static_cast<float>(-g * inv * meanDy);
  }
  if (!needDx) return m_dx;
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (Eigen::Index ch = 0; ch < c; ++ch) {
        const float mean = m_mean[ch], kDy = m_dxCoeffs(0, ch), kX = m_dxCoeffs(1, ch),
                    k0 = m_dxCoeffs(2, ch);
        const float* xs = xOf(s, ch);
        const float* d = dyOf(s, ch);
        float* dx = m_dx.data() + s * m_dx.rows() + ch * p;
        if (m_relu) {
          const float a = m_scale[ch], shift = m_shift[ch];
          for (std::int64_t i = 0; i < p; ++i) {
            const float rest = kX * (xs[i] - mean) + k0;
            dx[i] = reluPasses(xs[i], a, shift) ? rest + kDy * d[i] : rest;
          }
        } else {
          for (std::int64_t i = 0; i < p; ++i) dx[i] = kDy * d[i] + (kX * (xs[i] - mean) + k0);
        }
      }
  });
  return m_dx;
}

bool BatchNorm::takeFollowingActivation(Activation a) {
  m_relu = a == Activation::ReLU;
  return m_relu;
}

}  // namespace core::nn
