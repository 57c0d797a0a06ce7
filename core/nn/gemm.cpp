#include "core/nn/gemm.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/nn/eigen.h"  // also brings <immintrin.h> in with GCC 12's false warnings silenced
#include "core/nn/gemm_precision.h"
#include "core/nn/transpose16.h"
#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr, kKc = kGemmKc, kMc = kGemmMc, kNc = kGemmNc;

std::int64_t roundUp(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

struct PackBuffers {
  std::vector<float, Eigen::aligned_allocator<float>> a, b;
};

PackBuffers& buffers() {
  thread_local PackBuffers p;
  return p;
}


void packMatrixA(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst) {
  const GemmOperand& a = *static_cast<const GemmOperand*>(ctx);
  for (std::int64_t ir = 0; ir < mc; ir += kMr) {
    const std::int64_t mr = std::min(kMr, mc - ir);
    float* strip = dst + ir * kc;
    if (a.transpose == Transpose::No) {  // element (i, p) at i + p * ld: rows contiguous
      for (std::int64_t p = 0; p < kc; ++p) {
        const float* src = a.data + (i0 + ir) + (p0 + p) * a.ld;
        float* out = strip + p * kMr;
        for (std::int64_t i = 0; i < mr; ++i) out[i] = src[i];
        for (std::int64_t i = mr; i < kMr; ++i) out[i] = 0.0f;
      }
    } else {  // element (i, p) at p + i * ld: a transpose
      std::int64_t done = 0;
#if defined(__AVX512F__)
      for (std::int64_t ib = 0; ib + 16 <= mr; ib += 16) {
        const float* src = a.data + p0 + (i0 + ir + ib) * a.ld;
        for (done = 0; done + 16 <= kc; done += 16) transpose16x16(src + done, a.ld, strip + done * kMr + ib, kMr);
      }
      if (mr % 16 != 0) done = 0;  // ragged rows: the scalar loop below does everything
#endif
      for (std::int64_t i = 0; i < mr; ++i) {
        const float* src = a.data + p0 + (i0 + ir + i) * a.ld;
        for (std::int64_t p = done; p < kc; ++p) strip[p * kMr + i] = src[p];
      }
      for (std::int64_t i = mr; i < kMr; ++i)
        for (std::int64_t p = 0; p < kc; ++p) strip[p * kMr + i] = 0.0f;
    }
  }
}

void packMatrixB(const void* ctx, std::int64_t p0, std::int64_t j0, std::int64_t kc, std::int64_t nc, float* dst) {
  const GemmOperand& b = *static_cast<const GemmOperand*>(ctx);
  for (std::int64_t jr = 0; jr < nc; jr += kNr) {
    const std::int64_t nr = std::min(kNr, nc - jr);
    float* strip = dst + jr * kc;
    if (b.transpose == Transpose::No) {  // element (p, j) at p + j * ld: read along p per column
      for (std::int64_t j = 0; j < nr; ++j) {
        const float* src = b.data + p0 + (j0 + jr + j) * b.ld;
        for (std::int64_t p = 0; p < kc; ++p) strip[p * kNr + j] = src[p];
      }
      for (std::int64_t j = nr; j < kNr; ++j)
        for (std::int64_t p = 0; p < kc; ++p) strip[p * kNr + j] = 0.0f;
    } else {  // element (p, j) at j + p * ld: columns contiguous
      for (std::int64_t p = 0; p < kc; ++p) {
        const float* src = b.data + (j0 + jr) + (p0 + p) * b.ld;
        float* out = strip + p * kNr;
        for (std::int64_t j = 0; j < nr; ++j) out[j] = src[j];
        for (std::int64_t j = nr; j < kNr; ++j) out[j] = 0.0f;
      }
    }
  }
}

#if defined(__AVX512F__)
// Tile (kMr x kNr) = A strip * B strip; written to C directly (column-major, mr x nr valid)
// or, when `tile` is non-null, to that kMr x kNr buffer.
void microKernel(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c, std::int64_t ldc,
                 bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00, c06 = c00, c07 = c00;
  __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00, c16 = c00, c17 = c00;
#pragma GCC unroll 4
  for (std::int64_t p = 0; p < kc; ++p) {
    const __m512 a0 = _mm512_load_ps(a), a1 = _mm512_load_ps(a + 16);
    __m512 bb;
#define ACCELLAB_GEMM_STEP(j)               \
  bb = _mm512_set1_ps(b[j]);                \
  c0##j = _mm512_fmadd_ps(a0, bb, c0##j);   \
  c1##j = _mm512_fmadd_ps(a1, bb, c1##j);
    ACCELLAB_GEMM_STEP(0) ACCELLAB_GEMM_STEP(1) ACCELLAB_GEMM_STEP(2) ACCELLAB_GEMM_STEP(3)
    ACCELLAB_GEMM_STEP(4) ACCELLAB_GEMM_STEP(5) ACCELLAB_GEMM_STEP(6) ACCELLAB_GEMM_STEP(7)
#undef ACCELLAB_GEMM_STEP
    a += kMr;
    b += kNr;
  }
  const __m512 lo[kNr] = {c00, c01, c02, c03, c04, c05, c06, c07};
  const __m512 hi[kNr] = {c10, c11, c12, c13, c14, c15, c16, c17};
  if (tile) {
    for (std::int64_t j = 0; j < kNr; ++j) {
      _mm512_storeu_ps(tile + j * kMr, lo[j]);
      _mm512_storeu_ps(tile + j * kMr + 16, hi[j]);
    }
    return;
  }
  const auto mask = [](std::int64_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff) : n <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << n) - 1u);
  };
  const __mmask16 m0 = mask(mr), m1 = mask(mr - 16);
  for (std::int64_t j = 0; j < nr; ++j) {
    float* cj = c + j * ldc;
    __m512 v0 = lo[j], v1 = hi[j];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, cj));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, cj + 16));
    }
    _mm512_mask_storeu_ps(cj, m0, v0);
    _mm512_mask_storeu_ps(cj + 16, m1, v1);
  }
}
#else
void microKernel(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c, std::int64_t ldc,
                 bool accumulate, std::int64_t mr, std::int64_t nr, float* tile) {
  float acc[kNr][kMr] = {};
  for (std::int64_t p = 0; p < kc; ++p, a += kMr, b += kNr)
    for (std::int64_t j = 0; j < kNr; ++j)
      for (std::int64_t i = 0; i < kMr; ++i) acc[j][i] += a[i] * b[j];
  if (tile) {
    for (std::int64_t j = 0; j < kNr; ++j)
      for (std::int64_t i = 0; i < kMr; ++i) tile[j * kMr + i] = acc[j][i];
    return;
  }
  for (std::int64_t j = 0; j < nr; ++j)
    for (std::int64_t i = 0; i < mr; ++i) c[i + j * ldc] = (accumulate ? c[i + j * ldc] : 0.0f) + acc[j][i];
}
#endif

// The blocked loops; `panelB(jc, pc, kc, nc)` returns the packed B panel.
template <class PanelB>
void drive(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, PanelB&& panelB, const GemmC& c,
           util::Precision precision) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!c.store && !c.accumulate)
      for (std::int64_t j = 0; j < n; ++j) std::fill_n(c.data + j * c.ld, m, 0.0f);
    return;
  }
  PackBuffers& buf = buffers();
  if (buf.a.size() < static_cast<std::size_t>(kMc * kKc)) buf.a.resize(static_cast<std::size_t>(kMc * kKc));
  float* ap = buf.a.data();
  alignas(64) float tile[kMr * kNr];
  for (std::int64_t jc = 0; jc < n; jc += kNc) {
    const std::int64_t nc = std::min(kNc, n - jc);
    for (std::int64_t pc = 0; pc < k; pc += kKc) {
      const std::int64_t kc = std::min(kKc, k - pc);
      const float* bp = panelB(jc, pc, kc, nc);
      const bool first = pc == 0, last = pc + kc >= k;
      for (std::int64_t ic = 0; ic < m; ic += kMc) {
        const std::int64_t mc = std::min(kMc, m - ic);
        a.pack(a.ctx, ic, pc, mc, kc, ap);
        if (precision != util::Precision::FP32) roundInPlace(ap, roundUp(mc, kMr) * kc, precision);
        for (std::int64_t jr = 0; jr < nc; jr += kNr) {
          const std::int64_t nr = std::min(kNr, nc - jr);
          for (std::int64_t ir = 0; ir < mc; ir += kMr) {
            const std::int64_t mr = std::min(kMr, mc - ir);
            if (c.store) {
              microKernel(kc, ap + ir * kc, bp + jr * kc, nullptr, 0, false, mr, nr, tile);
              c.store(c.ctx, tile, ic + ir, jc + jr, mr, nr, first, last);
            } else {
              microKernel(kc, ap + ir * kc, bp + jr * kc, c.data + (ic + ir) + (jc + jr) * c.ld, c.ld, c.accumulate || !first, mr,
                          nr, nullptr);
            }
          }
        }
      }
    }
  }
}

// Store mode with a pre-packed B: a row block of C accumulates over the whole depth in a
// private buffer (Goto's panel order inside the block, so each B strip stays in L1 across the
// block's row strips), then each finished tile goes to the store callback once
// (first == last == true).
void driveStore(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, const PackedB& b, const GemmC& c,
                util::Precision precision) {
  constexpr std::int64_t kBlockRows = 192;  // C block: 192 x 2048 floats at most
  PackBuffers& buf = buffers();
  if (buf.a.size() < static_cast<std::size_t>(kMc * kKc)) buf.a.resize(static_cast<std::size_t>(kMc * kKc));
  thread_local std::vector<float, Eigen::aligned_allocator<float>> cbuf;
  float* ap = buf.a.data();
  for (std::int64_t jc = 0; jc < n; jc += kNc) {
    const std::int64_t nc = std::min(kNc, n - jc), ncPad = roundUp(nc, kNr);
    for (std::int64_t ic = 0; ic < m; ic += kBlockRows) {
      const std::int64_t mc = std::min(kBlockRows, m - ic), mcPad = roundUp(mc, kMr);
      if (cbuf.size() < static_cast<std::size_t>(mcPad * ncPad)) cbuf.resize(static_cast<std::size_t>(mcPad * ncPad));
      float* cb = cbuf.data();  // column-major mcPad x ncPad
      for (std::int64_t pc = 0; pc < k; pc += kKc) {
        const std::int64_t kc = std::min(kKc, k - pc);
        a.pack(a.ctx, ic, pc, mc, kc, ap);
        if (precision != util::Precision::FP32) roundInPlace(ap, mcPad * kc, precision);
        const float* bp = b.panel(jc, pc);
        for (std::int64_t jr = 0; jr < nc; jr += kNr)
          for (std::int64_t ir = 0; ir < mc; ir += kMr)
            microKernel(kc, ap + ir * kc, bp + jr * kc, cb + ir + jr * mcPad, mcPad, pc > 0, kMr, kNr, nullptr);
      }
      for (std::int64_t jr = 0; jr < nc; jr += kNr) {
        const std::int64_t nr = std::min(kNr, nc - jr);
        for (std::int64_t ir = 0; ir < mc; ir += kMr) {
          alignas(64) float tile[kMr * kNr];
          for (std::int64_t j = 0; j < kNr; ++j) std::copy_n(cb + ir + (jr + j) * mcPad, kMr, tile + j * kMr);
          c.store(c.ctx, tile, ic + ir, jc + jr, std::min(kMr, mc - ir), nr, true, true);
        }
      }
    }
  }
}

}  // namespace

GemmA gemmA(const GemmOperand& a) { return {packMatrixA, &a}; }
GemmB gemmB(const GemmOperand& b) { return {packMatrixB, &b}; }

void PackedB::pack(GemmB b, std::int64_t k, std::int64_t n, util::Precision precision) {
  m_k = k;
  m_n = n;
  m_data.resize(static_cast<std::size_t>(roundUp(n, kNr) * k));
  // Panels are independent: pack them in parallel (pure copies, so the result does not depend
  // on the thread count).
  const std::int64_t colBlocks = (n + kNc - 1) / kNc, depthPanels = (k + kKc - 1) / kKc;
  util::parallelFor(colBlocks * depthPanels, 1, [&](std::ptrdiff_t q0, std::ptrdiff_t q1) {
    for (std::ptrdiff_t q = q0; q < q1; ++q) {
      const std::int64_t jc = q / depthPanels * kNc, pc = q % depthPanels * kKc;
      const std::int64_t nc = std::min(kNc, n - jc), kc = std::min(kKc, k - pc);
      float* dst = const_cast<float*>(panel(jc, pc));
      b.pack(b.ctx, pc, jc, kc, nc, dst);
      if (precision != util::Precision::FP32) roundInPlace(dst, roundUp(nc, kNr) * kc, precision);
    }
  });
}

const float* PackedB::panel(std::int64_t jc, std::int64_t pc) const {
  // Panels of one column block are consecutive; a block of nc columns takes roundUp(nc) * k.
  return m_data.data() + jc * m_k + roundUp(std::min(kNc, m_n - jc), kNr) * pc;
}

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, GemmB b, const GemmC& c, util::Precision precision) {
  PackBuffers& buf = buffers();
  if (buf.b.size() < static_cast<std::size_t>(kNc * kKc)) buf.b.resize(static_cast<std::size_t>(kNc * kKc));
  float* bp = buf.b.data();
  drive(m, n, k, a,
        [&](std::int64_t jc, std::int64_t pc, std::int64_t kc, std::int64_t nc) {
          b.pack(b.ctx, pc, jc, kc, nc, bp);
          if (precision != util::Precision::FP32) roundInPlace(bp, roundUp(nc, kNr) * kc, precision);
          return static_cast<const float*>(bp);
        },
        c, precision);
}

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, const PackedB& b, const GemmC& c, util::Precision precision) {
  if (b.k() != k || b.n() != n)
  {
    std::string msg = "gemm: packed operand is ";
    msg.append(std::to_string(b.k())).append(1, 'x').append(std::to_string(b.n()));
    msg.append(", expected ").append(std::to_string(k)).append(1, 'x').append(std::to_string(n));
    throw util::Error(msg);
  }
  if (c.store) {
    driveStore(m, n, k, a, b, c, precision);
    return;
  }
  drive(m, n, k, a, [&](std::int64_t jc, std::int64_t pc, std::int64_t, std::int64_t) { return b.panel(jc, pc); }, c,
        precision);
}

void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmOperand a, GemmOperand b, float* c, std::int64_t ldc,
           bool accumulate, util::Precision precision) {
  GemmC out;
  out.data = c;
  out.ld = ldc;
  out.accumulate = accumulate;
  gemm(m, n, k, gemmA(a), gemmB(b), out, precision);
}

}  // namespace core::nn
