#pragma once
// Internal to the Winograd convolution: the F(m, r) matrices. The vectorised transforms (input,
// output, kernel, output-gradient and weight-gradient tiles), on "lanes" of 16 floats (16
// channels, tiles or filters) with the coefficients as compile-time constants so zero and +-1
// terms fold, are winograd_lanes.inc, compiled once per instruction set (simd_regions.h).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced
#include "core/nn/winograd.h"

namespace core::nn {

struct WinogradConv::Transforms {
  int m = 0, r = 0, alpha = 0;  // F(m x m, r x r): m x m outputs a tile, alpha = m + r - 1
  std::vector<float> bt;   // alpha x alpha: input tile transform
  std::vector<float> g;    // alpha x r: kernel transform
  std::vector<float> at;   // m x alpha: output transform
  std::vector<float> gw;   // alpha x m: output-gradient tile transform (weight gradient)
  std::vector<float> atw;  // r x alpha: weight-gradient output transform
};

namespace winograd_detail {

constexpr int kLanes = 16;
constexpr int kMaxAlpha = 6;

// The tiles there are transforms for: F(2, 3), F(4, 3) and F(2, 5).
constexpr bool hasTransforms(int m, int r) { return (m == 2 && (r == 3 || r == 5)) || (m == 4 && r == 3); }

// The matrices of F(m, r) (Cook-Toom, computed once and cached); throws util::Error for a tile
// without transforms, or if they disagree with the compile-time constants below.
std::shared_ptr<const WinogradConv::Transforms> transformsFor(int m, int r);

// The same matrices as compile-time constants, so the per-tile transforms unroll into
// register arithmetic. B^T depends only on the points (alpha of them, infinity included):
// F(2, 5) and F(4, 3) share theirs. F(2, 3) takes 0, +-1 and infinity.
template <int M, int R>
struct Coefficients;
template <>
struct Coefficients<2, 3> {
  static constexpr int kAlpha = 4;
  static constexpr float bt[4][4] = {{1, 0, -1, 0}, {0, 0.5f, 0.5f, 0}, {0, -0.5f, 0.5f, 0}, {0, -1, 0, 1}};
  static constexpr float at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, 1}};
  static constexpr float gw[4][2] = {{1, 0}, {1, 1}, {1, -1}, {0, 1}};
  static constexpr float atw[3][4] = {{1, 1, 1, 0}, {0, 1, -1, 0}, {0, 1, 1, 1}};
};
// Six points: 0, +-3/2, +-2/3 and infinity. With Lavin's 0, +-1, +-2, bf16's rounding of the
// transformed tiles left 6-8% of F(4, 3)'s largest output in error (F(2, 5) 4-11%; F(2, 3)'s four
// points 0.4-0.5%); these points cut it to 1.5-2.4% (tests/core/nn/test_winograd.cpp) with the
// same zeros, so the same multiply-adds.
struct SixPoints {
  static constexpr int kAlpha = 6;
  static constexpr float bt[6][6] = {{1, 0, -97.0f / 36, 0, 1, 0},
                                     {0, -16.0f / 195, -32.0f / 585, 12.0f / 65, 8.0f / 65, 0},
                                     {0, 16.0f / 195, -32.0f / 585, -12.0f / 65, 8.0f / 65, 0},
                                     {0, 243.0f / 260, 729.0f / 520, -27.0f / 65, -81.0f / 130, 0},
                                     {0, -243.0f / 260, 729.0f / 520, 27.0f / 65, -81.0f / 130, 0},
                                     {0, 1, 0, -97.0f / 36, 0, 1}};
  // Row k of the Vandermonde matrix transposed: the points to the power k (infinity: 1 in the
  // last row only).
  static constexpr float p1[6] = {0, 1.5f, -1.5f, 2.0f / 3, -2.0f / 3, 0};
  static constexpr float p2[6] = {0, 2.25f, 2.25f, 4.0f / 9, 4.0f / 9, 0};
  static constexpr float p3[6] = {0, 3.375f, -3.375f, 8.0f / 27, -8.0f / 27, 0};
  static constexpr float p4[6] = {0, 5.0625f, 5.0625f, 16.0f / 81, 16.0f / 81, 0};
};
template <>
struct Coefficients<2, 5> : SixPoints {
  static constexpr float at[2][6] = {{1, 1, 1, 1, 1, 0}, {p1[0], p1[1], p1[2], p1[3], p1[4], 1}};
  static constexpr float gw[6][2] = {{1, p1[0]}, {1, p1[1]}, {1, p1[2]}, {1, p1[3]}, {1, p1[4]}, {0, 1}};
  static constexpr float atw[5][6] = {{1, 1, 1, 1, 1, 0},
                                      {p1[0], p1[1], p1[2], p1[3], p1[4], 0},
                                      {p2[0], p2[1], p2[2], p2[3], p2[4], 0},
                                      {p3[0], p3[1], p3[2], p3[3], p3[4], 0},
                                      {p4[0], p4[1], p4[2], p4[3], p4[4], 1}};
};
template <>
struct Coefficients<4, 3> : SixPoints {
  static constexpr float at[4][6] = {{1, 1, 1, 1, 1, 0},
                                     {p1[0], p1[1], p1[2], p1[3], p1[4], 0},
                                     {p2[0], p2[1], p2[2], p2[3], p2[4], 0},
                                     {p3[0], p3[1], p3[2], p3[3], p3[4], 1}};
  static constexpr float gw[6][4] = {{1, p1[0], p2[0], p3[0]}, {1, p1[1], p2[1], p3[1]},
                                     {1, p1[2], p2[2], p3[2]}, {1, p1[3], p2[3], p3[3]},
                                     {1, p1[4], p2[4], p3[4]}, {0, 0, 0, 1}};
  static constexpr float atw[3][6] = {
      {1, 1, 1, 1, 1, 0}, {p1[0], p1[1], p1[2], p1[3], p1[4], 0}, {p2[0], p2[1], p2[2], p2[3], p2[4], 1}};
};

// Calls f.template operator()<M, R>() for a tile hasTransforms(m, r) accepts: the one place a
// run-time (m, r) becomes compile-time constants (the transforms call it once a call, outside
// their tile loops).
template <class F>
inline void withTile(int m, int r, F&& f) {
  if (m == 4)
    f.template operator()<4, 3>();
  else if (r == 5)
    f.template operator()<2, 5>();
  else
    f.template operator()<2, 3>();
}

}  // namespace winograd_detail
}  // namespace core::nn
