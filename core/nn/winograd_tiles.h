#pragma once
// Internal to the Winograd convolution: the F(2, r) matrices. The vectorised transforms (input,
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
  int r = 0, alpha = 0;
  std::vector<float> bt;   // alpha x alpha: input tile transform
  std::vector<float> g;    // alpha x r: kernel transform
  std::vector<float> at;   // 2 x alpha: output transform
  std::vector<float> gw;   // alpha x 2: output-gradient tile transform (weight gradient)
  std::vector<float> atw;  // r x alpha: weight-gradient output transform
};

namespace winograd_detail {

constexpr int kLanes = 16;
constexpr int kMaxAlpha = 6;

// The matrices for r = 3 or 5 (Cook-Toom, computed once and cached); throws util::Error if
// they disagree with the compile-time constants below.
std::shared_ptr<const WinogradConv::Transforms> transformsFor(int r);

// The same matrices as compile-time constants, so the per-tile transforms unroll into
// register arithmetic.
template <int R>
struct Coefficients;
template <>
struct Coefficients<3> {
  static constexpr int kAlpha = 4;
  static constexpr float bt[4][4] = {{1, 0, -1, 0}, {0, 0.5f, 0.5f, 0}, {0, -0.5f, 0.5f, 0}, {0, -1, 0, 1}};
  static constexpr float at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, 1}};
  static constexpr float gw[4][2] = {{1, 0}, {1, 1}, {1, -1}, {0, 1}};
  static constexpr float atw[3][4] = {{1, 1, 1, 0}, {0, 1, -1, 0}, {0, 1, 1, 1}};
};
template <>
struct Coefficients<5> {
  static constexpr int kAlpha = 6;
  static constexpr float bt[6][6] = {{1, 0, -1.25f, 0, 0.25f, 0},
                                     {0, 2.0f / 3, 2.0f / 3, -1.0f / 6, -1.0f / 6, 0},
                                     {0, -2.0f / 3, 2.0f / 3, 1.0f / 6, -1.0f / 6, 0},
                                     {0, -1.0f / 12, -1.0f / 24, 1.0f / 12, 1.0f / 24, 0},
                                     {0, 1.0f / 12, -1.0f / 24, -1.0f / 12, 1.0f / 24, 0},
                                     {0, 4, 0, -5, 0, 1}};
  static constexpr float at[2][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 1}};
  static constexpr float gw[6][2] = {{1, 0}, {1, 1}, {1, -1}, {1, 2}, {1, -2}, {0, 1}};
  static constexpr float atw[5][6] = {{1, 1, 1, 1, 1, 0},  {0, 1, -1, 2, -2, 0},  {0, 1, 1, 4, 4, 0},
                                      {0, 1, -1, 8, -8, 0}, {0, 1, 1, 16, 16, 1}};
};

}  // namespace winograd_detail
}  // namespace core::nn
