#include "core/nn/gemm.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/nn/eigen.h"  // also brings <immintrin.h> in with GCC 12's false warnings silenced
#include "core/nn/gemm_kernels.h"
#include "core/nn/gemm_precision.h"
#include "core/nn/simd_regions.h"
#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr, kKc = kGemmKc, kMc = kGemmMc, kNc = kGemmNc;
using detail::packMatrixA;
using detail::packMatrixB;

std::int64_t roundUp(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

struct PackBuffers {
  std::vector<float, Eigen::aligned_allocator<float>> a, b;
  std::vector<std::uint32_t, Eigen::aligned_allocator<std::uint32_t>> aPairs, bPairs;  // the bf16 path's operands
};

template <class V>
auto* reserved(V& v, std::int64_t n) {
  if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
  return v.data();
}

PackBuffers& buffers() {
  thread_local PackBuffers p;
  return p;
}

// The plain matrix behind B where it is one (gemmB), else null: plain operands have their own
// packers and kernels.
const GemmOperand* plainB(const GemmB& b) {
  return b.pack == packMatrixB ? static_cast<const GemmOperand*>(b.ctx) : nullptr;
}

// A panel of B (kc x nc from (pc, jc)) in a bf16 form: a plain matrix converted as it is read
// where the form has such a packer (all but a transposed B in AMX's tiles; the columns form has
// no other), else packed in fp32 to `scratch` and converted. Packing once per call (gemm) and
// once per weight (PackedB) both come here.
void packBWords(const GemmB& b, std::int64_t pc, std::int64_t jc, std::int64_t kc, std::int64_t nc, detail::Form form,
                std::uint32_t* dst, float* scratch) {
  if (const GemmOperand* plain = plainB(b)) {
    const GemmOperand& op = *plain;
    const bool transposed = op.transpose == Transpose::Yes;
    const float* at = transposed ? op.data + jc + pc * op.ld : op.data + pc + jc * op.ld;
    if (detail::packPlainB(at, op.ld, transposed, kc, nc, dst, form)) return;
  }
  b.pack(b.ctx, pc, jc, kc, nc, scratch);
  detail::packBf16B(scratch, kc, roundUp(nc, kNr) / kNr, dst, form);
}

// The kernel a GEMM runs: fp32 FMA (its operands rounded to the precision while packed,
// emulating 16-bit formats), or a bf16 kernel on operands packed in its bf16 form.
struct Path {
  util::Precision precision = util::Precision::FP32;
  detail::Form form = detail::Form::Fp32;
  detail::Fp32Kernel fp32 = nullptr;
  detail::Bf16Kernel bf16 = nullptr;
  detail::Bf16Kernel2 amx2 = nullptr;  // AMX: two B strips at once

  static Path choose(util::Precision p, detail::Form form) {
    Path path;
    path.precision = p;
    path.form = form;
    if (form == detail::Form::Fp32) path.fp32 = detail::fp32Kernel();
    else path.bf16 = detail::bf16Kernel(form);
    if (form == detail::Form::AmxTiles) path.amx2 = detail::amxKernel2();
    return path;
  }
  // Strips jr and jr + kNr of a panel at once (the second has nr1 columns); false where the
  // path has no such kernel or there is no second strip.
  bool twoStrips(std::int64_t jr, std::int64_t nc) const { return amx2 && jr + kGemmNr < nc; }
  void run2(std::int64_t kc, const void* a, const void* b, float* c0, float* c1, std::int64_t ldc, bool accumulate,
            std::int64_t mr, std::int64_t nr1, float* tile0, float* tile1) const {
    const std::int64_t depth = detail::packedDepth(form, kc);
    const auto* bw = static_cast<const std::uint32_t*>(b);
    amx2(depth, static_cast<const std::uint32_t*>(a), bw, bw + kGemmNr * depth, c0, c1, ldc, accumulate, mr, nr1, tile0,
         tile1);
  }
  // Strip offset (in elements of the packed form) of row or column `at` in a panel kc deep.
  std::int64_t offset(std::int64_t at, std::int64_t kc) const { return at * detail::packedDepth(form, kc); }
  // `bias`: the rows' bias, added to C's tile after the product ((C + tile) + bias), by the kernel
  // as it writes C (from registers on AVX-512; through its buffer elsewhere).
  void run(std::int64_t kc, const void* a, const void* b, float* c, std::int64_t ldc, bool accumulate,
           const float* bias, std::int64_t mr, std::int64_t nr, float* tile) const {
    if (bf16)
      bf16(detail::packedDepth(form, kc), static_cast<const std::uint32_t*>(a),
           static_cast<const std::uint32_t*>(b), c, ldc, accumulate, bias, mr, nr, tile);
    else
      fp32(kc, static_cast<const float*>(a), static_cast<const float*>(b), c, ldc, accumulate, bias, mr, nr,
           tile);
  }
};

// A GEMM on AMX tiles lets the thread's tile state go when it ends, whichever way it ends.
struct ReleaseTiles {
  const Path& path;
  ~ReleaseTiles() {
    if (path.form == detail::Form::AmxTiles) detail::releaseTiles();
  }
};

// The form a GEMM at `precision` packs its operands in, on this CPU now: AVX512_BF16 keeps a plain
// untransposed B column by column (converted in order, no transpose).
detail::Form formFor(util::Precision precision, const GemmB& b) {
  if (precision != util::Precision::BF16) return detail::Form::Fp32;
  switch (gemmIsa()) {
    case GemmIsa::Amx: return detail::Form::AmxTiles;
    case GemmIsa::Avx512Bf16:
      return plainB(b) && plainB(b)->transpose == Transpose::No ? detail::Form::Bf16Columns
                                                                  : detail::Form::Bf16Pairs;
    default: return detail::Form::Fp32;
  }
}

// The plain-B kernel for an fp32 GEMM whose B is a plain matrix, where the path has one.
detail::Fp32PlainKernel plainKernelFor(const GemmB& b, util::Precision precision) {
  if (precision != util::Precision::FP32 || !plainB(b)) return nullptr;
  return detail::fp32PlainKernel(plainB(b)->transpose == Transpose::Yes);
}

// A block of A (mc x kc) packed in the path's form; returns its start.
const void* packA(const GemmA& a, const Path& path, std::int64_t ic, std::int64_t pc, std::int64_t mc, std::int64_t kc,
                  PackBuffers& buf) {
  const std::int64_t mcPad = roundUp(mc, kMr);
  if (path.form != detail::Form::Fp32) {
    std::uint32_t* words = reserved(buf.aPairs, kMc * detail::packedDepth(path.form, kKc));
    if (a.pack == packMatrixA) {  // a plain matrix: converted as it is read
      const GemmOperand& op = *static_cast<const GemmOperand*>(a.ctx);
      const bool transposed = op.transpose == Transpose::Yes;
      const float* at = transposed ? op.data + pc + ic * op.ld : op.data + ic + pc * op.ld;
      if (detail::packPlainA(at, op.ld, transposed, mc, kc, words, path.form)) return words;
    }
    float* ap = reserved(buf.a, kMc * kKc);
    a.pack(a.ctx, ic, pc, mc, kc, ap);
    detail::packBf16A(ap, kc, mcPad / kMr, words, path.form);
    return words;
  }
  float* ap = reserved(buf.a, kMc * kKc);
  a.pack(a.ctx, ic, pc, mc, kc, ap);
  if (path.precision != util::Precision::FP32) roundInPlace(ap, mcPad * kc, path.precision);
  return ap;
}

// C's tile (mr x nr from c) plus the bias of its rows, after the tile's last depth panel: where the
// kernel cannot add it (an empty depth; AMX's two strips at once, stored from tiles).
void addRowBias(float* c, std::int64_t ldc, const float* bias, std::int64_t mr, std::int64_t nr) {
  for (std::int64_t j = 0; j < nr; ++j)
    for (std::int64_t i = 0; i < mr; ++i) c[i + j * ldc] += bias[i];
}

// The blocked loops; `panelB(jc, pc, kc, nc)` returns the packed B panel in the path's form.
template <class PanelB>
void drive(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, PanelB&& panelB, const GemmC& c, const Path& path) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!c.store && !c.accumulate)
      for (std::int64_t j = 0; j < n; ++j) std::fill_n(c.data + j * c.ld, m, 0.0f);
    if (!c.store && c.rowBias) addRowBias(c.data, c.ld, c.rowBias, m, n);
    return;
  }
  PackBuffers& buf = buffers();
  alignas(64) float tile[kMr * kNr];
  for (std::int64_t jc = 0; jc < n; jc += kNc) {
    const std::int64_t nc = std::min(kNc, n - jc);
    for (std::int64_t pc = 0; pc < k; pc += kKc) {
      const std::int64_t kc = std::min(kKc, k - pc);
      const char* bp = static_cast<const char*>(panelB(jc, pc, kc, nc));
      const bool first = pc == 0, last = pc + kc >= k;
      for (std::int64_t ic = 0; ic < m; ic += kMc) {
        const std::int64_t mc = std::min(kMc, m - ic);
        const char* ap = static_cast<const char*>(packA(a, path, ic, pc, mc, kc, buf));
        for (std::int64_t jr = 0; jr < nc; jr += kNr) {
          const std::int64_t nr = std::min(kNr, nc - jr);
          const char* bs = bp + path.offset(jr, kc) * 4;
          if (path.twoStrips(jr, nc)) {
            const std::int64_t nr1 = std::min(kNr, nc - jr - kNr);
            alignas(64) float tile1[kMr * kNr];
            for (std::int64_t ir = 0; ir < mc; ir += kMr) {
              const std::int64_t mr = std::min(kMr, mc - ir);
              const char* as = ap + path.offset(ir, kc) * 4;
              if (c.store) {
                path.run2(kc, as, bs, nullptr, nullptr, 0, false, mr, nr1, tile, tile1);
                c.store(c.ctx, tile, ic + ir, jc + jr, mr, kNr, first, last);
                c.store(c.ctx, tile1, ic + ir, jc + jr + kNr, mr, nr1, first, last);
              } else {
                float* c0 = c.data + (ic + ir) + (jc + jr) * c.ld;
                path.run2(kc, as, bs, c0, c0 + kNr * c.ld, c.ld, c.accumulate || !first, mr, nr1, nullptr, nullptr);
                if (last && c.rowBias) addRowBias(c0, c.ld, c.rowBias + ic + ir, mr, kNr + nr1);
              }
            }
            jr += kNr;  // the second strip is done
            continue;
          }
          for (std::int64_t ir = 0; ir < mc; ir += kMr) {
            const std::int64_t mr = std::min(kMr, mc - ir);
            const char* as = ap + path.offset(ir, kc) * 4;
            if (c.store) {
              path.run(kc, as, bs, nullptr, 0, false, nullptr, mr, nr, tile);
              c.store(c.ctx, tile, ic + ir, jc + jr, mr, nr, first, last);
            } else {
              // The bias with the last panel, from the kernel's registers (adding it to C after
              // C was stored read C straight back while its stores were still on their way).
              const float* bias = last && c.rowBias ? c.rowBias + ic + ir : nullptr;
              path.run(kc, as, bs, c.data + (ic + ir) + (jc + jr) * c.ld, c.ld, c.accumulate || !first, bias,
                       mr, nr, nullptr);
            }
          }
        }
      }
    }
  }
}

// fp32 with B a plain matrix, on a path with plain-B kernels: each strip of B is read where it
// lies, so an activation matrix is not copied before it is multiplied (on vit-tiny's and
// char-gpt's small layers the copies took a fifth of a step). A strip of fewer than kNr columns
// at the edge is packed (the kernels read whole strips).
void drivePlain(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, const GemmOperand& b, const GemmC& c,
                const Path& path, detail::Fp32PlainKernel kernel) {
  if (m <= 0 || n <= 0) return;
  const bool transposed = b.transpose == Transpose::Yes;
  PackBuffers& buf = buffers();
  alignas(64) float tile[kMr * kNr];
  for (std::int64_t pc = 0; pc < k; pc += kKc) {
    const std::int64_t kc = std::min(kKc, k - pc);
    const bool first = pc == 0, last = pc + kc >= k;
    for (std::int64_t ic = 0; ic < m; ic += kMc) {
      const std::int64_t mc = std::min(kMc, m - ic);
      const auto* ap = static_cast<const float*>(packA(a, path, ic, pc, mc, kc, buf));
      for (std::int64_t jr = 0; jr < n; jr += kNr) {
        const std::int64_t nr = std::min(kNr, n - jr);
        const float* edge = nullptr;  // the packed edge strip
        if (nr < kNr) {
          float* strip = reserved(buf.b, kNr * kc);
          packMatrixB(&b, pc, jr, kc, nr, strip);
          edge = strip;
        }
        const float* bs = transposed ? b.data + jr + pc * b.ld : b.data + pc + jr * b.ld;
        for (std::int64_t ir = 0; ir < mc; ir += kMr) {
          const std::int64_t mr = std::min(kMr, mc - ir);
          const float* as = ap + ir * kc;
          float* c0 = c.store ? nullptr : c.data + (ic + ir) + jr * c.ld;
          float* t = c.store ? tile : nullptr;
          const bool acc = !c.store && (c.accumulate || !first);
          const float* bias = !c.store && last && c.rowBias ? c.rowBias + ic + ir : nullptr;
          if (edge)
            path.fp32(kc, as, edge, c0, c.ld, acc, bias, mr, nr, t);
          else
            kernel(kc, as, bs, b.ld, c0, c.ld, acc, bias, mr, nr, t);
          if (c.store) c.store(c.ctx, tile, ic + ir, jr, mr, nr, first, last);
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
                const Path& path) {
  constexpr std::int64_t kBlockRows = 192;  // C block: 192 x 2048 floats at most
  PackBuffers& buf = buffers();
  thread_local std::vector<float, Eigen::aligned_allocator<float>> cbuf;
  for (std::int64_t jc = 0; jc < n; jc += kNc) {
    const std::int64_t nc = std::min(kNc, n - jc), ncPad = roundUp(nc, kNr);
    for (std::int64_t ic = 0; ic < m; ic += kBlockRows) {
      const std::int64_t mc = std::min(kBlockRows, m - ic), mcPad = roundUp(mc, kMr);
      float* cb = reserved(cbuf, mcPad * ncPad);  // column-major mcPad x ncPad
      for (std::int64_t pc = 0; pc < k; pc += kKc) {
        const std::int64_t kc = std::min(kKc, k - pc);
        const char* ap = static_cast<const char*>(packA(a, path, ic, pc, mc, kc, buf));
        const char* bp = static_cast<const char*>(b.formPanel(jc, pc));
        for (std::int64_t jr = 0; jr < nc; jr += kNr) {
          if (path.twoStrips(jr, nc)) {
            for (std::int64_t ir = 0; ir < mc; ir += kMr)
              path.run2(kc, ap + path.offset(ir, kc) * 4, bp + path.offset(jr, kc) * 4, cb + ir + jr * mcPad,
                        cb + ir + (jr + kNr) * mcPad, mcPad, pc > 0, kMr, kNr, nullptr, nullptr);
            jr += kNr;
            continue;
          }
          for (std::int64_t ir = 0; ir < mc; ir += kMr)
            path.run(kc, ap + path.offset(ir, kc) * 4, bp + path.offset(jr, kc) * 4, cb + ir + jr * mcPad,
                     mcPad, pc > 0, nullptr, kMr, kNr, nullptr);
        }
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
  const detail::Form form = formFor(precision, b);
  m_form = static_cast<int>(form);
  m_plain.reset();
  if (plainKernelFor(b, precision)) {  // read where it lies (drivePlain): nothing to copy
    m_plain = *plainB(b);
    m_data = {};
    m_pairs = {};
    return;
  }
  if (form != detail::Form::Fp32) {
    m_data = {};
    const std::int64_t last = k - (k - 1) / kKc * kKc;  // the last panel's depth
    m_pairs.resize(static_cast<std::size_t>(roundUp(n, kNr) * ((k - last) / 2 + detail::packedDepth(form, last))));
  } else {
    m_pairs = {};
    m_data.resize(static_cast<std::size_t>(roundUp(n, kNr) * k));
  }
  // Panels are independent: pack them in parallel (pure copies, so the result does not depend
  // on the thread count).
  const std::int64_t colBlocks = (n + kNc - 1) / kNc, depthPanels = (k + kKc - 1) / kKc;
  util::parallelFor(colBlocks * depthPanels, 1, [&](std::ptrdiff_t q0, std::ptrdiff_t q1) {
    for (std::ptrdiff_t q = q0; q < q1; ++q) {
      const std::int64_t jc = q / depthPanels * kNc, pc = q % depthPanels * kKc;
      const std::int64_t nc = std::min(kNc, n - jc), kc = std::min(kKc, k - pc), ncPad = roundUp(nc, kNr);
      if (form != detail::Form::Fp32) {
        packBWords(b, pc, jc, kc, nc, form, const_cast<std::uint32_t*>(pairPanel(jc, pc)), reserved(buffers().b, kNc * kKc));
        continue;
      }
      float* dst = const_cast<float*>(panel(jc, pc));
      b.pack(b.ctx, pc, jc, kc, nc, dst);
      if (precision != util::Precision::FP32) roundInPlace(dst, ncPad * kc, precision);
    }
  });
}

const float* PackedB::panel(std::int64_t jc, std::int64_t pc) const {
  // Panels of one column block are consecutive; a block of nc columns takes roundUp(nc) * k.
  return m_data.data() + jc * m_k + roundUp(std::min(kNc, m_n - jc), kNr) * pc;
}

const void* PackedB::formPanel(std::int64_t jc, std::int64_t pc) const {
  if (m_form != static_cast<int>(detail::Form::Fp32)) return pairPanel(jc, pc);
  return panel(jc, pc);
}

const std::uint32_t* PackedB::pairPanel(std::int64_t jc, std::int64_t pc) const {
  // As panel(), in words: every panel but the last is kKc deep (kKc / 2 pairs, whole AMX tiles),
  // so panel pc starts pc / 2 words into its block, and a block of nc columns takes
  // roundUp(nc) * (words of the whole depth).
  const std::int64_t perColumn = static_cast<std::int64_t>(m_pairs.size()) / roundUp(m_n, kNr);
  return m_pairs.data() + jc * perColumn + roundUp(std::min(kNc, m_n - jc), kNr) * (pc / 2);
}

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, GemmB b, const GemmC& c, util::Precision precision) {
  if (c.rowBias && c.store) throw util::Error("gemm: a row bias needs a column-major destination, not a store callback");
  PackBuffers& buf = buffers();
  const Path path = Path::choose(precision, formFor(precision, b));
  const ReleaseTiles release{path};
  const detail::Fp32PlainKernel plain = plainKernelFor(b, precision);
  if (plain && k > 0) {  // (an empty depth: drive clears or keeps C)
    drivePlain(m, n, k, a, *plainB(b), c, path, plain);
    return;
  }
  drive(m, n, k, a,
        [&](std::int64_t jc, std::int64_t pc, std::int64_t kc, std::int64_t nc) -> const void* {
          float* bp = reserved(buf.b, kNc * kKc);
          if (path.bf16) {
            std::uint32_t* words = reserved(buf.bPairs, kNc * detail::packedDepth(path.form, kKc));
            packBWords(b, pc, jc, kc, nc, path.form, words, bp);
            return words;
          }
          b.pack(b.ctx, pc, jc, kc, nc, bp);
          if (precision != util::Precision::FP32) roundInPlace(bp, roundUp(nc, kNr) * kc, precision);
          return bp;
        },
        c, path);
}

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, const PackedB& b, const GemmC& c, util::Precision precision) {
  if (b.k() != k || b.n() != n)
  {
    std::string msg = "gemm: packed operand is ";
    msg.append(std::to_string(b.k())).append(1, 'x').append(std::to_string(b.n()));
    msg.append(", expected ").append(std::to_string(k)).append(1, 'x').append(std::to_string(n));
    throw util::Error(msg);
  }
  if (c.rowBias && c.store) throw util::Error("gemm: a row bias needs a column-major destination, not a store callback");
  // Kept plain (not copied): the plain operand's GEMM (read where it lies, or packed per call
  // where a lowered limit has since taken the plain kernels away).
  if (b.plain()) {
    gemm(m, n, k, a, gemmB(*b.plain()), c, precision);
    return;
  }
  // B decided the form when it was packed: A follows it.
  const Path path = Path::choose(precision, static_cast<detail::Form>(b.form()));
  const ReleaseTiles release{path};
  if (c.store) {
    driveStore(m, n, k, a, b, c, path);
    return;
  }
  drive(m, n, k, a, [&](std::int64_t jc, std::int64_t pc, std::int64_t, std::int64_t) { return b.formPanel(jc, pc); }, c,
        path);
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
