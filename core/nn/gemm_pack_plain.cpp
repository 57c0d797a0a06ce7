// The fp32 packers of a plain column-major operand (gemm.h's GemmOperand): what gemmA and
// gemmB hand the GEMM (gemm_kernels.h).
#include <algorithm>
#include <cstring>

#include "core/nn/eigen.h"  // also brings <immintrin.h> in with GCC 12's false warnings silenced
#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels.h"
#include "core/nn/simd_regions.h"  // ACCELLAB_X86_KERNELS, avx512Runs
#include "core/nn/transpose16.h"

namespace core::nn::detail {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr;

// One depth of a strip kWidth wide from n <= kWidth consecutive values, zeros after: A as
// stored and B transposed hold a strip's depth contiguous.
template <std::int64_t kWidth>
void stripDepth(const float* src, std::int64_t n, float* out) {
  if (n == kWidth) {  // a whole strip: one fixed-size copy (vector moves)
    std::memcpy(out, src, sizeof(float) * kWidth);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) out[i] = src[i];
  for (std::int64_t i = n; i < kWidth; ++i) out[i] = 0.0f;
}

// Depths [from, kc) of a strip kWidth wide from its n <= kWidth lines, line i read from
// first + i * ld on (A transposed and B as stored hold a line contiguous), and zeros over the
// whole depth for lines n to kWidth: what the register transposes before it did not write.
template <std::int64_t kWidth>
void stripLines(const float* first, std::int64_t ld, std::int64_t n, std::int64_t from, std::int64_t kc, float* strip) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float* src = first + i * ld;
    for (std::int64_t p = from; p < kc; ++p) strip[p * kWidth + i] = src[p];
  }
  for (std::int64_t i = n; i < kWidth; ++i)
    for (std::int64_t p = 0; p < kc; ++p) strip[p * kWidth + i] = 0.0f;
}

}  // namespace

void packMatrixA(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst) {
  const GemmOperand& a = *static_cast<const GemmOperand*>(ctx);
  if (a.transpose == Transpose::No) {  // element (i, p) at i + p * ld: each column read once, in order
    for (std::int64_t p = 0; p < kc; ++p) {
      const float* src = a.data + i0 + (p0 + p) * a.ld;
      for (std::int64_t ir = 0; ir < mc; ir += kMr) stripDepth<kMr>(src + ir, std::min(kMr, mc - ir), dst + ir * kc + p * kMr);
    }
    return;
  }
  // element (i, p) at p + i * ld: a transpose
  for (std::int64_t ir = 0; ir < mc; ir += kMr) {
    const std::int64_t mr = std::min(kMr, mc - ir);
    float* strip = dst + ir * kc;
    std::int64_t done = 0;
#if ACCELLAB_X86_KERNELS
    if (avx512Runs()) {  // 16 x 16 blocks transposed in registers
      for (std::int64_t ib = 0; ib + 16 <= mr; ib += 16) {
        const float* src = a.data + p0 + (i0 + ir + ib) * a.ld;
        for (done = 0; done + 16 <= kc; done += 16) transpose16x16(src + done, a.ld, strip + done * kMr + ib, kMr);
      }
      if (mr % 16 != 0) done = 0;  // ragged rows: the scalar loop below does everything
    }
#endif
    stripLines<kMr>(a.data + p0 + (i0 + ir) * a.ld, a.ld, mr, done, kc, strip);
  }
}

void packMatrixB(const void* ctx, std::int64_t p0, std::int64_t j0, std::int64_t kc, std::int64_t nc, float* dst) {
  const GemmOperand& b = *static_cast<const GemmOperand*>(ctx);
  for (std::int64_t jr = 0; jr < nc; jr += kNr) {
    const std::int64_t nr = std::min(kNr, nc - jr);
    float* strip = dst + jr * kc;
    if (b.transpose == Transpose::No) {  // element (p, j) at p + j * ld: read along p per column
      std::int64_t done = 0;
#if defined(__AVX__)
      if (nr == kNr) {  // eight whole columns: 8 x 8 blocks transposed in registers
        const float* col = b.data + p0 + (j0 + jr) * b.ld;
        for (; done + 8 <= kc; done += 8) transpose8x8(col + done, b.ld, strip + done * kNr);
      }
#endif
      stripLines<kNr>(b.data + p0 + (j0 + jr) * b.ld, b.ld, nr, done, kc, strip);
    } else {  // element (p, j) at j + p * ld: columns contiguous
      for (std::int64_t p = 0; p < kc; ++p) stripDepth<kNr>(b.data + (j0 + jr) + (p0 + p) * b.ld, nr, strip + p * kNr);
    }
  }
}

}  // namespace core::nn::detail
