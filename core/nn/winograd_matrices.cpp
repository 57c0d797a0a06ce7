// The Winograd F(2, r) matrices, from first principles (Cook-Toom with the points 0, +-1
// (+-2) and infinity), in double precision.
#include <cmath>
#include <map>
#include <mutex>

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

template <int R>
bool sameCoefficients(const WinogradConv::Transforms& t) {
  using C = Coefficients<R>;
  constexpr int A = C::kAlpha;
  bool same = true;
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < A; ++j) same = same && std::abs(t.bt[static_cast<std::size_t>(i * A + j)] - C::bt[i][j]) < 1e-6f;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < A; ++j) same = same && t.at[static_cast<std::size_t>(i * A + j)] == C::at[i][j];
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < 2; ++j) same = same && t.gw[static_cast<std::size_t>(i * 2 + j)] == C::gw[i][j];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < A; ++j) same = same && t.atw[static_cast<std::size_t>(i * A + j)] == C::atw[i][j];
  // The kernel transform G (alpha x r) is the same Vandermonde matrix: kernelTile reads atw^T.
  for (int i = 0; i < A; ++i)
    for (int j = 0; j < R; ++j) same = same && t.g[static_cast<std::size_t>(i * R + j)] == C::atw[j][i];
  return same;
}

void checkCoefficients(const WinogradConv::Transforms& t) {
  if (!(t.r == 3 ? sameCoefficients<3>(t) : sameCoefficients<5>(t)))
    throw util::Error("Winograd convolution: transform constants disagree with the computed matrices");
}

}  // namespace

// The F(2, r) matrices from Cook-Toom with points 0, 1, -1 (, 2, -2) and infinity:
// correlation y = V_m^T [(V_r g) . (V^-T d)], so A^T = V_2^T, G = V_r, B^T = V^-T.
std::shared_ptr<const WinogradConv::Transforms> transformsFor(int r) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<const WinogradConv::Transforms>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(r); it != cache.end()) return it->second;
  const std::vector<double> points = r == 3 ? std::vector<double>{0, 1, -1} : std::vector<double>{0, 1, -1, 2, -2};
  auto t = std::make_shared<WinogradConv::Transforms>();
  t->r = r;
  t->alpha = r + 1;
  t->bt = toFloat(inverse(vandermonde(points, t->alpha)).transposed());
  t->g = toFloat(vandermonde(points, r));
  t->at = toFloat(vandermonde(points, 2).transposed());
  t->gw = toFloat(vandermonde(points, 2));
  t->atw = toFloat(vandermonde(points, r).transposed());
  checkCoefficients(*t);
  cache.emplace(r, t);
  return t;
}

}  // namespace core::nn::winograd_detail
