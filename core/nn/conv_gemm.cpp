#include "core/nn/conv_gemm.h"

#include <algorithm>

#include "core/nn/bounded_vectors.h"
#include "core/nn/eigen.h"  // <immintrin.h>, GCC 12 warnings silenced
#include "core/nn/simd_regions.h"
#include "core/nn/transpose16.h"

namespace core::nn {
namespace {

// A maximal stretch of consecutive rows inside one output row of one sample.
struct Run {
  std::int64_t sample;
  int oy, ox0, len;
  std::int64_t offset;  // position of its first row within the packed range
};

// Splits rows [r0, r0 + count) into runs; returns the number written to `out`.
template <std::size_t N>
int rowRuns(const ConvGeometry& g, std::int64_t r0, std::int64_t count, Run (&out)[N]) {
  const std::int64_t pixels = g.outPixels();
  int n = 0;
  std::int64_t off = 0;
  while (off < count) {
    const std::int64_t r = r0 + off, s = r / pixels, pix = r % pixels;
    const int oy = static_cast<int>(pix / g.outW), ox = static_cast<int>(pix % g.outW);
    const int len = static_cast<int>(std::min<std::int64_t>(g.outW - ox, count - off));
    out[n++] = Run{s, oy, ox, len, off};
    off += len;
  }
  return n;
}

// Output columns [ox0, ox1) of a run whose input column for tap kx is inside the image.
inline void validColumns(const ConvGeometry& g, int kx, int first, int len, int& l0, int& l1) {
  // ix = (first + l) * sw + kx - padLeft in [0, width)
  const int base = first * g.strideW + kx - g.padLeft;
  l0 = base >= 0 ? 0 : (-base + g.strideW - 1) / g.strideW;
  const int hi = g.width - base;  // need l * sw < hi
  l1 = hi <= 0 ? 0 : std::min(len, (hi + g.strideW - 1) / g.strideW);
  if (l1 < l0) l1 = l0;
}

// Offset of output pixel row r (over the chunk's samples) in the padded images.
struct PixelCursor {
  const ConvPlan& plan;
  std::int64_t sample;
  int oy, ox;
  PixelCursor(const ConvPlan& p, std::int64_t r)
      : plan(p), sample(r / p.g.outPixels()), oy(static_cast<int>(r % p.g.outPixels() / p.g.outW)),
        ox(static_cast<int>(r % p.g.outPixels() % p.g.outW)) {}
  std::int32_t offset() const {
    return static_cast<std::int32_t>(sample * plan.paddedSize() +
                                     static_cast<std::int64_t>(oy) * plan.g.strideH * plan.paddedW +
                                     static_cast<std::int64_t>(ox) * plan.g.strideW);
  }
  void next() {
    if (++ox == plan.g.outW) {
      ox = 0;
      if (++oy == plan.g.outH) {
        oy = 0;
        ++sample;
      }
    }
  }
};

#if ACCELLAB_X86_KERNELS
// One padded row of `width` floats: zeros but for columns [x0, x1), which take src[0, x1 - x0).
// A vector at a time, loaded whole where it ends before `srcEnd` and stored whole where it ends
// before `dstEnd` (what it writes past the row, the caller writes later: it writes rows in order;
// bounded_vectors.h). A small row was three calls (a copy and two fills), each costlier than the
// row. The first vector's input moves up by x0 lanes where the row starts with padding.
ACCELLAB_TARGET("avx512f")
void padRowAvx512(const float* src, const float* srcEnd, int x0, int x1, int width, float* row,
                  const float* dstEnd) {
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int j = 0; j < width; j += 16) {
    const int lo = std::max(x0 - j, 0), hi = std::min(x1 - j, 16);  // the lanes that hold input
    __m512 v = _mm512_setzero_ps();
    if (lo < hi) {
      const float* p = src + (j + lo - x0);
      const __mmask16 keep = firstLanes(hi - lo);
      // The lanes kept by a masked permute, not a masked move: GCC folds a masked move of a load
      // into a masked load, which crosses cache lines slowly (it was most of this function's time).
      v = _mm512_maskz_permutexvar_ps(static_cast<__mmask16>(keep << lo),
                                      _mm512_sub_epi32(lane, _mm512_set1_epi32(lo)),
                                      loadBounded(p, srcEnd, hi - lo));
    }
    storeBounded(row + j, dstEnd, width - j, v);
  }
}

// A run of up to 16 pixels along one output row, kStride (1 or 2) values apart in the padded
// input from `at`, as one vector: the run's span loaded under masks (lo: its first 16 values, hi:
// the rest) and, at stride 2, its even values kept by one permute. A gather loads lane by lane
// (the stride-2 packers took a quarter of a ResNet downsampling layer's time with gathers).
template <int kStride>
ACCELLAB_TARGET("avx512f")
inline __m512 loadRun(const float* at, __mmask16 lo, __mmask16 hi) {
  if constexpr (kStride == 1) {
    (void)hi;
    return _mm512_maskz_loadu_ps(lo, at);
  } else {
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(lo, at), evens, _mm512_maskz_loadu_ps(hi, at + 16));
  }
}

// The values a run of len pixels spans in the padded input.
template <int kStride>
constexpr std::int64_t runSpan(std::int64_t len) {
  return kStride * (len - 1) + 1;
}

// One strip of patches (rows: the pixels at offsets pix[0, mr); depth: taps[0, kc)) at stride
// kStride: consecutive pixels of one output row are kStride values apart in the padded input, so
// each run of them is loaded as a vector (loadRun) and stored under its mask.
template <int kStride>
ACCELLAB_TARGET("avx512f")
void patchRunsAvx512(const ConvPatches& in, const std::int32_t* taps, const std::int32_t* pix,
                     std::int64_t mr, std::int64_t kc, float* strip) {
  struct Seg {
    std::int32_t src, dst;
    __mmask16 keep, spanLo, spanHi;  // the run's lanes; its span's values in each load
  };
  Seg segs[kGemmMr + 1];
  int n = 0;
  for (std::int64_t i = 0; i < kGemmMr;) {
    std::int64_t len = 1;
    if (i < mr)
      while (i + len < mr && len < 16 && pix[i + len] == pix[i] + kStride * len) ++len;
    else
      len = std::min<std::int64_t>(16, kGemmMr - i);  // padding lanes: zeros
    const std::int64_t span = runSpan<kStride>(len);
    segs[n++] = Seg{i < mr ? pix[i] : -1, static_cast<std::int32_t>(i), firstLanes(len), firstLanes(span),
                    firstLanes(span - 16)};
    i += len;
  }
  for (std::int64_t p = 0; p < kc; ++p) {
    const float* base = in.padded + taps[p];
    float* out = strip + p * kGemmMr;
    for (int q = 0; q < n; ++q) {
      const Seg& sg = segs[q];
      const __m512 v =
          sg.src >= 0 ? loadRun<kStride>(base + sg.src, sg.spanLo, sg.spanHi) : _mm512_setzero_ps();
      _mm512_mask_storeu_ps(out + sg.dst, sg.keep, v);
    }
  }
}

// One strip of patches in AVX-512: runs of pixels at strides 1 and 2, gathers at larger ones.
ACCELLAB_TARGET("avx512f")
void patchStripAvx512(const ConvPatches& in, const std::int32_t* taps, const std::int32_t* pix,
                      std::int64_t mr, std::int64_t kc, float* strip) {
  if (in.plan->g.strideW == 1) return patchRunsAvx512<1>(in, taps, pix, mr, kc, strip);
  if (in.plan->g.strideW == 2) return patchRunsAvx512<2>(in, taps, pix, mr, kc, strip);
  const __m512i lo = _mm512_loadu_si512(pix), hi = _mm512_loadu_si512(pix + 16);
  const __mmask16 mlo = mr >= 16 ? 0xffff : static_cast<__mmask16>((1u << mr) - 1u);
  const __mmask16 mhi = mr >= 32 ? 0xffff : mr <= 16 ? 0 : static_cast<__mmask16>((1u << (mr - 16)) - 1u);
  for (std::int64_t p = 0; p < kc; ++p) {
    const float* base = in.padded + taps[p];
    _mm512_storeu_ps(strip + p * kGemmMr, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mlo, lo, base, 4));
    _mm512_storeu_ps(strip + p * kGemmMr + 16, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mhi, hi, base, 4));
  }
}

// One strip of kGemmNr patch columns (taps[0, nr)) over the pixels at offsets pix[0, kc), at
// stride kStride (1 or 2) with output rows 8 pixels or wider: runs of up to 16 pixels along an
// output row, tap by tap, are loaded as vectors (loadRun) and transposed in registers to the
// strip's rows of 8 taps, where a gather loaded the 8 taps of a pixel lane by lane.
template <int kStride>
ACCELLAB_TARGET("avx512f")
void patchColumnsRuns(const ConvPatches& in, const std::int32_t* pix, const std::int32_t* taps,
                      std::int64_t nr, std::int64_t kc, float* strip) {
  for (std::int64_t p = 0; p < kc;) {
    std::int64_t len = 1;
    while (p + len < kc && len < 16 && pix[p + len] == pix[p] + kStride * len) ++len;
    const std::int64_t span = runSpan<kStride>(len);
    const __mmask16 lo = firstLanes(span), hi = firstLanes(span - 16);
    __m512 r[16];
    for (std::int64_t j = 0; j < 16; ++j)
      r[j] = j < nr ? loadRun<kStride>(in.padded + taps[j] + pix[p], lo, hi) : _mm512_setzero_ps();
    transpose16x16Registers(r);  // r[l] lane j: pixel l's tap j
    for (std::int64_t l = 0; l < len; ++l) _mm256_storeu_ps(strip + (p + l) * kGemmNr, _mm512_castps512_ps256(r[l]));
    p += len;
  }
}

// dst[2 l] += src[l] for l < n (a stride-2 run of patch gradients back into its image row): 16
// values a step, spread to the even lanes of two vectors and added there under a mask, so the
// odd values stay as they were (the scalar loop took a fifth of a stride-2 layer's time).
ACCELLAB_TARGET("avx512f")
void addToEveryOther(float* dst, const float* src, std::int64_t n) {
  const __m512i first8 = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  const __m512i last8 = _mm512_add_epi32(first8, _mm512_set1_epi32(8));
  constexpr __mmask16 kEven = 0x5555;
  for (std::int64_t l = 0; l < n; l += 16, dst += 32) {
    const std::int64_t span = 2 * std::min<std::int64_t>(16, n - l) - 1;
    const __m512 v = _mm512_maskz_loadu_ps(firstLanes((span + 1) / 2), src + l);
    const __mmask16 lo = kEven & firstLanes(span), hi = kEven & firstLanes(span - 16);
    _mm512_mask_storeu_ps(dst, lo, _mm512_add_ps(_mm512_maskz_loadu_ps(lo, dst), _mm512_permutexvar_ps(first8, v)));
    if (hi)
      _mm512_mask_storeu_ps(dst + 16, hi,
                            _mm512_add_ps(_mm512_maskz_loadu_ps(hi, dst + 16), _mm512_permutexvar_ps(last8, v)));
  }
}

// One strip of kGemmNr patch columns (taps[0, nr)) over the pixels at offsets pix[0, kc), with
// AVX2 gathers. Used where AVX-512 runs and the runs above do not apply (a stride above 2, output
// rows narrower than 8 pixels): on AVX2-only CPUs (Zen 2/3) gathers are slow and were never
// measured against the scalar loop.
ACCELLAB_TARGET("avx2")
void patchColumnsAvx2(const ConvPatches& in, const std::int32_t* pix, const std::int32_t* taps, std::int64_t nr,
                      std::int64_t kc, float* strip) {
  static_assert(kGemmNr == 8);
  const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(taps));
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(nr)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (std::int64_t p = 0; p < kc; ++p)
    _mm256_storeu_ps(strip + p * kGemmNr,
                     _mm256_mask_i32gather_ps(_mm256_setzero_ps(), in.padded + pix[p], idx, _mm256_castsi256_ps(mask), 4));
}
#endif

void packPatchesA(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst) {
  const ConvPatches& in = *static_cast<const ConvPatches*>(ctx);
  const std::int32_t* taps = in.plan->tapOffsets.data() + p0;
  PixelCursor cursor(*in.plan, i0);
#if ACCELLAB_X86_KERNELS
  const bool avx512 = avx512Runs();
#endif
  for (std::int64_t ir = 0; ir < mc; ir += kGemmMr) {
    const std::int64_t mr = std::min(kGemmMr, mc - ir);
    std::int32_t pix[kGemmMr] = {};
    for (std::int64_t i = 0; i < mr; ++i, cursor.next()) pix[i] = cursor.offset();
    float* strip = dst + ir * kc;
#if ACCELLAB_X86_KERNELS
    if (avx512) {
      patchStripAvx512(in, taps, pix, mr, kc, strip);
      continue;
    }
#endif
    for (std::int64_t p = 0; p < kc; ++p) {
      const float* base = in.padded + taps[p];
      float* out = strip + p * kGemmMr;
      for (std::int64_t i = 0; i < kGemmMr; ++i) out[i] = i < mr ? base[pix[i]] : 0.0f;
    }
  }
}

void packPatchesB(const void* ctx, std::int64_t p0, std::int64_t j0, std::int64_t kc, std::int64_t nc, float* dst) {
  const ConvPatches& in = *static_cast<const ConvPatches*>(ctx);
  std::int32_t pix[kGemmKc];
  PixelCursor cursor(*in.plan, p0);
  for (std::int64_t p = 0; p < kc; ++p, cursor.next()) pix[p] = cursor.offset();
#if ACCELLAB_X86_KERNELS
  const bool gathers = avx512Runs();
  const bool runs = gathers && in.plan->g.strideW <= 2 && in.plan->g.outW >= 8;
#endif
  for (std::int64_t jr = 0; jr < nc; jr += kGemmNr) {
    const std::int64_t nr = std::min(kGemmNr, nc - jr);
    float* strip = dst + jr * kc;
    std::int32_t taps[kGemmNr] = {};
    for (std::int64_t j = 0; j < nr; ++j) taps[j] = in.plan->tapOffsets[static_cast<std::size_t>(j0 + jr + j)];
#if ACCELLAB_X86_KERNELS
    if (runs) {
      if (in.plan->g.strideW == 1)
        patchColumnsRuns<1>(in, pix, taps, nr, kc, strip);
      else
        patchColumnsRuns<2>(in, pix, taps, nr, kc, strip);
      continue;
    }
    if (gathers) {
      patchColumnsAvx2(in, pix, taps, nr, kc, strip);
      continue;
    }
#endif
    for (std::int64_t p = 0; p < kc; ++p) {
      const float* base = in.padded + pix[p];
      for (std::int64_t j = 0; j < kGemmNr; ++j) strip[p * kGemmNr + j] = j < nr ? base[taps[j]] : 0.0f;
    }
  }
}

// Rows [r0, r0 + count) of the (samples * pixels) dimension split by sample.
struct Segment {
  std::int64_t sample, pixel, len, offset;
};
template <std::size_t N>
int sampleSegments(std::int64_t pixels, std::int64_t r0, std::int64_t count, Segment (&out)[N]) {
  int n = 0;
  std::int64_t off = 0;
  while (off < count) {
    const std::int64_t r = r0 + off, s = r / pixels, pix = r % pixels, len = std::min(pixels - pix, count - off);
    out[n++] = Segment{s, pix, len, off};
    off += len;
  }
  return n;
}

void packMapsA(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst) {
  const ChannelMaps& m = *static_cast<const ChannelMaps*>(ctx);
  const std::int64_t sampleSize = m.channels * m.pixels;
  for (std::int64_t ir = 0; ir < mc; ir += kGemmMr) {
    const std::int64_t mr = std::min(kGemmMr, mc - ir);
    float* strip = dst + ir * kc;
    Segment segs[kGemmMr];
    const int n = sampleSegments(m.pixels, i0 + ir, mr, segs);
    for (std::int64_t p = 0; p < kc; ++p) {
      float* out = strip + p * kGemmMr;
      for (int q = 0; q < n; ++q) {
        const float* src = m.data + segs[q].sample * sampleSize + (p0 + p) * m.pixels + segs[q].pixel;
        for (std::int64_t l = 0; l < segs[q].len; ++l) out[segs[q].offset + l] = src[l];
      }
      for (std::int64_t i = mr; i < kGemmMr; ++i) out[i] = 0.0f;
    }
  }
}

void packMapsTransposedA(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst) {
  const ChannelMaps& m = *static_cast<const ChannelMaps*>(ctx);
  const std::int64_t sampleSize = m.channels * m.pixels;
  Segment segs[kGemmKc];
  const int n = sampleSegments(m.pixels, p0, kc, segs);
  for (std::int64_t ir = 0; ir < mc; ir += kGemmMr) {
    const std::int64_t mr = std::min(kGemmMr, mc - ir);
    float* strip = dst + ir * kc;
    for (std::int64_t i = 0; i < kGemmMr; ++i) {
      if (i >= mr) {
        for (std::int64_t p = 0; p < kc; ++p) strip[p * kGemmMr + i] = 0.0f;
        continue;
      }
      for (int q = 0; q < n; ++q) {
        const float* src = m.data + segs[q].sample * sampleSize + (i0 + ir + i) * m.pixels + segs[q].pixel;
        float* out = strip + segs[q].offset * kGemmMr + i;
        for (std::int64_t l = 0; l < segs[q].len; ++l) out[l * kGemmMr] = src[l];
      }
    }
  }
}

void storeMaps(void* ctx, const float* tile, std::int64_t i0, std::int64_t j0, std::int64_t mr, std::int64_t nr, bool first,
               bool last) {
  const MapsStore& s = *static_cast<const MapsStore*>(ctx);
  Segment segs[kGemmMr];
  const int n = sampleSegments(s.pixels, i0, mr, segs);
  for (std::int64_t j = 0; j < nr; ++j) {
    const std::int64_t ch = j0 + j;
    const float* col = tile + j * kGemmMr;
    for (int q = 0; q < n; ++q) {
      float* dst = s.data + (segs[q].sample * s.channels + ch) * s.pixels + segs[q].pixel;
      const float* src = col + segs[q].offset;
      const std::int64_t len = segs[q].len;
      if (first) {
        for (std::int64_t l = 0; l < len; ++l) dst[l] = src[l];
      } else {
        for (std::int64_t l = 0; l < len; ++l) dst[l] += src[l];
      }
      if (last) {
        if (s.bias) {
          const float b = s.bias[ch];
          for (std::int64_t l = 0; l < len; ++l) dst[l] += b;
        }
        applyActivation(s.activation, dst, len);
      }
    }
  }
}

void storePatchGrad(void* ctx, const float* tile, std::int64_t i0, std::int64_t j0, std::int64_t mr, std::int64_t nr, bool,
                    bool) {
  const PatchGradientStore& s = *static_cast<const PatchGradientStore*>(ctx);
  const ConvGeometry& g = s.plan->g;
#if ACCELLAB_X86_KERNELS
  const bool everyOther = g.strideW == 2 && avx512Runs();
#endif
  Run runs[kGemmMr];
  const int nRuns = rowRuns(g, i0, mr, runs);
  for (std::int64_t j = 0; j < nr; ++j) {
    const ConvTap t = s.plan->taps[static_cast<std::size_t>(j0 + j)];
    const int c = t.channel, ky = t.ky, kx = t.kx;
    const float* col = tile + j * kGemmMr;
    for (int r = 0; r < nRuns; ++r) {
      const Run& run = runs[r];
      const int iy = run.oy * g.strideH + ky - g.padTop;
      if (iy < 0 || iy >= g.height) continue;
      int l0, l1;
      validColumns(g, kx, run.ox0, run.len, l0, l1);
      float* row = s.images + run.sample * g.inSize() + (static_cast<std::int64_t>(c) * g.height + iy) * g.width;
      const int base = run.ox0 * g.strideW + kx - g.padLeft;
      const float* src = col + run.offset;
#if ACCELLAB_X86_KERNELS
      if (everyOther) {
        addToEveryOther(row + base + 2 * l0, src + l0, l1 - l0);
        continue;
      }
#endif
      for (int l = l0; l < l1; ++l) row[base + l * g.strideW] += src[l];
    }
  }
}

void packFlipped(const void* ctx, std::int64_t p0, std::int64_t j0, std::int64_t kc, std::int64_t nc, float* dst) {
  const FlippedWeights& w = *static_cast<const FlippedWeights*>(ctx);
  const ConvGeometry& g = *w.forward;
  const std::int64_t taps = static_cast<std::int64_t>(g.kernelH) * g.kernelW;
  for (std::int64_t jr = 0; jr < nc; jr += kGemmNr) {
    const std::int64_t nr = std::min(kGemmNr, nc - jr);
    float* strip = dst + jr * kc;
    for (std::int64_t p = 0; p < kc; ++p) {
      const std::int64_t q = p0 + p, f = q / taps, t = q % taps;
      const std::int64_t flipped = taps - 1 - t;  // (kh-1-ky, kw-1-kx)
      float* out = strip + p * kGemmNr;
      for (std::int64_t j = 0; j < nr; ++j) out[j] = w.weights[f + w.filters * ((j0 + jr + j) * taps + flipped)];
      for (std::int64_t j = nr; j < kGemmNr; ++j) out[j] = 0.0f;
    }
  }
}

}  // namespace

bool hasTransposedForm(const ConvGeometry& g) {
  // Few input channels would leave most of each micro-tile's columns empty: the patch
  // scatter is cheaper there.
  return g.strideH == 1 && g.strideW == 1 && g.padTop <= g.kernelH - 1 && g.padLeft <= g.kernelW - 1 &&
         g.channels >= 16;
}

ConvGeometry transposedGeometry(const ConvGeometry& g, int filters) {
  ConvGeometry t;
  t.channels = filters;
  t.height = g.outH;
  t.width = g.outW;
  t.kernelH = g.kernelH;
  t.kernelW = g.kernelW;
  t.padTop = g.kernelH - 1 - g.padTop;
  t.padLeft = g.kernelW - 1 - g.padLeft;
  t.outH = g.height;
  t.outW = g.width;
  return t;
}

GemmB flippedWeightsAsB(const FlippedWeights& w) { return {packFlipped, &w}; }

void padImages(const ConvPlan& plan, const float* images, int samples, float* padded) {
  const ConvGeometry& g = plan.g;
  const std::int64_t plane = static_cast<std::int64_t>(plan.paddedH) * plan.paddedW;
  // Padded row y holds input row y - padTop; columns likewise (cropped when the windows do not
  // reach the last rows/columns of a 'valid' convolution). Each float is written once: the pass
  // is bound by memory (clearing the plane first wrote it twice).
  const int x0 = std::max(0, g.padLeft), x1 = std::min(plan.paddedW, g.width + g.padLeft);
#if ACCELLAB_X86_KERNELS
  const bool avx512 = avx512Runs();
  const float* srcEnd = images + samples * g.inSize();
  const float* dstEnd = padded + samples * plan.paddedSize();
#endif
  for (int s = 0; s < samples; ++s)
    for (int c = 0; c < g.channels; ++c) {
      const float* src = images + s * g.inSize() + static_cast<std::int64_t>(c) * g.height * g.width;
      float* dst = padded + s * plan.paddedSize() + c * plane;
      for (int y = 0; y < plan.paddedH; ++y) {
        const int iy = y - g.padTop;
        float* row = dst + static_cast<std::int64_t>(y) * plan.paddedW;
        const bool inside = iy >= 0 && iy < g.height && x0 < x1;
#if ACCELLAB_X86_KERNELS
        if (avx512) {
          if (inside)
            padRowAvx512(src + iy * g.width + x0 - g.padLeft, srcEnd, x0, x1, plan.paddedW, row, dstEnd);
          else
            padRowAvx512(src, srcEnd, 0, 0, plan.paddedW, row, dstEnd);
          continue;
        }
#endif
        if (!inside) {
          std::fill_n(row, plan.paddedW, 0.0f);
          continue;
        }
        std::fill(row, row + x0, 0.0f);
        std::copy(src + iy * g.width + x0 - g.padLeft, src + iy * g.width + x1 - g.padLeft, row + x0);
        std::fill(row + x1, row + plan.paddedW, 0.0f);
      }
    }
}

int maxSamplesPerGemm(const ConvPlan& plan) {
  const std::int64_t limit = (std::int64_t{1} << 31) / std::max<std::int64_t>(1, plan.paddedSize()) - 1;
  return static_cast<int>(std::clamp<std::int64_t>(limit, 1, 1 << 20));
}

GemmA patchesAsA(const ConvPatches& p) { return {packPatchesA, &p}; }
GemmB patchesAsB(const ConvPatches& p) { return {packPatchesB, &p}; }
GemmA mapsAsA(const ChannelMaps& m) { return {packMapsA, &m}; }
GemmA mapsTransposedAsA(const ChannelMaps& m) { return {packMapsTransposedA, &m}; }

GemmC storeToMaps(MapsStore& s) {
  GemmC c;
  c.store = storeMaps;
  c.ctx = &s;
  return c;
}

GemmC storePatchGradient(PatchGradientStore& s) {
  GemmC c;
  c.store = storePatchGrad;
  c.ctx = &s;
  return c;
}

}  // namespace core::nn
