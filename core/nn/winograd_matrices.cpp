// The Winograd F(m, r) matrices, from first principles (Cook-Toom with the points 0, +-1 and
// infinity for 4 points; 0, +-3/2, +-2/3 and infinity for 6), in double precision.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/nn/winograd_tiles.h"
#include "core/util/error.h"

namespace core::nn::winograd_detail {
namespace {

// Row-major small dense matrix.
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Mat(int r, int c) : rows(r), cols(c), v(static_cast<std::size_t>(r * c), 0.0) {}
  double& operator()(int i, int j) { return v[static_cast<std::size_t>(i * cols + j)]; }
  double operator()(int i, int j) const { return v[static_cast<std::size_t>(i * cols + j)]; }
  Mat transposed() const {
    Mat t(cols, rows);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) t(j, i) = (*this)(i, j);
    return t;
  }
};

// Evaluation of polynomials with n coefficients at the points, plus the leading coefficient
// (the point at infinity) in the last row.
Mat vandermonde(const std::vector<double>& points, int n) {
  const int alpha = static_cast<int>(points.size()) + 1;
  Mat m(alpha, n);
  for (int j = 0; j + 1 < alpha; ++j)
    for (int k = 0; k < n; ++k) m(j, k) = std::pow(points[static_cast<std::size_t>(j)], k);
  m(alpha - 1, n - 1) = 1.0;
  return m;
}

Mat inverse(Mat a) {
  const int n = a.rows;
  Mat inv(n, n);
  for (int i = 0; i < n; ++i) inv(i, i) = 1.0;
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(a(r, c)) > std::abs(a(p, c))) p = r;
    for (int j = 0; j < n; ++j) {
      std::swap(a(c, j), a(p, j));
      std::swap(inv(c, j), inv(p, j));
    }
    const double d = a(c, c);
    for (int j = 0; j < n; ++j) {
      a(c, j) /= d;
      inv(c, j) /= d;
    }
    for (int r = 0; r < n; ++r) {
      if (r == c || a(r, c) == 0.0) continue;
      const double f = a(r, c);
      for (int j = 0; j < n; ++j) {
        a(r, j) -= f * a(c, j);
        inv(r, j) -= f * inv(c, j);
      }
    }
  }
  return inv;
}

std::vector<float> toFloat(const Mat& m) {
  std::vector<float> f(m.v.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(m.v[i]);
  return f;
}

// Equal to a float's rounding (the constants are fractions divided in float, the matrices
// inverted in double).
bool close(float a, float b) { return std::abs(a - b) <= 1e-6f * std::max(1.0f, std::abs(b)); }

template <int M, int R>
bool sameCoefficients(const WinogradConv::Transforms& t) {
  using C = Coefficients<M, R>;
  constexpr int A = C::kAlpha;
  static_assert(A == M + R - 1);
  bool same = t.m == M && t.r == R && t.alpha == A;
  for (int i = 0; same && i < A; ++i)
    for (int j = 0; j < A; ++j) same = same && close(t.bt[static_cast<std::size_t>(i * A + j)], C::bt[i][j]);
  for (int i = 0; same && i < M; ++i)
    for (int j = 0; j < A; ++j) same = same && close(t.at[static_cast<std::size_t>(i * A + j)], C::at[i][j]);
  for (int i = 0; same && i < A; ++i)
    for (int j = 0; j < M; ++j) same = same && close(t.gw[static_cast<std::size_t>(i * M + j)], C::gw[i][j]);
  for (int i = 0; same && i < R; ++i)
    for (int j = 0; j < A; ++j)
      same = same && close(t.atw[static_cast<std::size_t>(i * A + j)], C::atw[i][j]);
  // The kernel transform G (alpha x r) is the same Vandermonde matrix: kernelTile reads atw^T.
  for (int i = 0; same && i < A; ++i)
    for (int j = 0; j < R; ++j) same = same && close(t.g[static_cast<std::size_t>(i * R + j)], C::atw[j][i]);
  return same;
}

void checkCoefficients(const WinogradConv::Transforms& t) {
  bool same = false;
  withTile(t.m, t.r, [&]<int M, int R>() { same = sameCoefficients<M, R>(t); });
  if (!same)
    throw util::Error("Winograd convolution: transform constants disagree with the computed matrices");
}

}  // namespace

// The F(m, r) matrices from Cook-Toom with alpha = m + r - 1 points (winograd_tiles.h says
// which): correlation y = V_m^T [(V_r g) . (V^-T d)], so A^T = V_m^T, G = V_r, B^T = V^-T.
// The weight gradient is F(r, m) on the same points: Gw = V_m, ATw = V_r^T.
std::shared_ptr<const WinogradConv::Transforms> transformsFor(int m, int r) {
  if (!hasTransforms(m, r))
    throw util::Error("Winograd convolution: no F(" + std::to_string(m) + ", " + std::to_string(r) +
                      ") transforms");
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::shared_ptr<const WinogradConv::Transforms>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find({m, r}); it != cache.end()) return it->second;
  auto t = std::make_shared<WinogradConv::Transforms>();
  t->m = m;
  t->r = r;
  t->alpha = m + r - 1;
  const std::vector<double> points =
      t->alpha == 4 ? std::vector<double>{0, 1, -1} : std::vector<double>{0, 1.5, -1.5, 2.0 / 3, -2.0 / 3};
  t->bt = toFloat(inverse(vandermonde(points, t->alpha)).transposed());
  t->g = toFloat(vandermonde(points, r));
  t->at = toFloat(vandermonde(points, m).transposed());
  t->gw = toFloat(vandermonde(points, m));
  t->atw = toFloat(vandermonde(points, r).transposed());
  checkCoefficients(*t);
  cache.emplace(std::make_pair(m, r), t);
  return t;
}

}  // namespace core::nn::winograd_detail
