#pragma once
// Single-threaded packed SGEMM for the engine's layers (the callers split work across
// threads): C = op(A) * op(B). Blocked for cache in Goto's loop order around a 32 x 8
// micro-kernel chosen at run time: AVX-512, AVX2 + FMA or portable, and for bf16 AMX tiles or
// AVX512_BF16 dot products where the CPU has them (gemm_kernels.h).
//
// Operands are reached through packing callbacks, so a layer can feed the GEMM straight
// from its own layout (a convolution packs image patches without an im2col buffer) and
// receive finished tiles through a store callback (scatter, bias, activation). Plain
// column-major matrices have ready-made packers. With a 16-bit precision the operands are
// rounded while they are packed: on bf16 hardware to bf16 pairs the kernel multiplies
// directly, elsewhere to fp32 values a 16-bit format can hold (emulation). Both round the
// operands the same way (to nearest even); the hardware also flushes denormal operands and
// results to zero and sums in its own order, differences far below bf16's precision.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/precision.h"

namespace core::nn {

// The instruction set the GEMM's micro-kernels use, chosen at run time (gemm_kernels.h):
// the best the CPU has, unless lowered by the environment variable ACCELLAB_GEMM_ISA or by
// limitGemmIsa (benchmarks and tests compare the paths on one machine).
// Avx512Bf16 multiplies bf16 with AVX512_BF16 dot products, Amx with AMX tiles (both fp32
// otherwise, as Avx512).
enum class GemmIsa { Portable, Avx2, Avx512, Avx512Bf16, Amx };
const char* gemmIsaName(GemmIsa isa);  // "portable", "avx2", "avx512", "avx512-bf16", "amx"
std::optional<GemmIsa> parseGemmIsa(std::string_view name);
// What this CPU runs (and its OS enables): AMX where it is; AVX512_BF16's dot products only
// where a short measurement finds them kBf16DotProductGain times fp32 FMAs (not on Intel cores).
GemmIsa detectedGemmIsa();
inline constexpr double kBf16DotProductGain = 1.3;
bool bf16DotProductsPay(double bf16Flops, double fp32Flops);  // the rule, pure
GemmIsa gemmIsa();          // what runs now: the detected path, at most the limit
// Runs at most `most` from now on (never more than the CPU has); returns the previous limit.
GemmIsa limitGemmIsa(GemmIsa most);
// Whether a bf16 GEMM multiplies in bf16 hardware (AMX or AVX512_BF16) rather than
// rounding its operands to bf16 and multiplying in fp32 (the same numbers, half the speed).
bool bf16OnHardware();
// What a GEMM at `precision` runs, in words, for `bench`, the GUI and the host device.
std::string gemmPathText(util::Precision precision);

inline constexpr std::int64_t kGemmMr = 32;   // micro-tile rows
inline constexpr std::int64_t kGemmNr = 8;    // micro-tile columns
inline constexpr std::int64_t kGemmKc = 384;  // depth of a packed panel
inline constexpr std::int64_t kGemmMc = 384;  // rows of a packed A block
inline constexpr std::int64_t kGemmNc = 2048; // columns of a packed B panel

// Packs rows [i0, i0 + mc) x depth [p0, p0 + kc) of A into strips of kGemmMr rows; strip r
// starts at dst + r * kGemmMr * kc and holds kc groups of kGemmMr values (rows past mc zero).
using PackAFn = void (*)(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst);
// Packs depth [p0, p0 + kc) x columns [j0, j0 + nc) of B into strips of kGemmNr columns;
// strip s starts at dst + s * kGemmNr * kc and holds kc groups of kGemmNr values (zero-padded).
using PackBFn = void (*)(const void* ctx, std::int64_t p0, std::int64_t j0, std::int64_t kc, std::int64_t nc, float* dst);
// Receives the partial product of one depth panel for C rows [i0, i0 + mr) x columns
// [j0, j0 + nr): `tile` is kGemmMr x kGemmNr, column-major. Panels arrive in depth order;
// `first` / `last` mark the first and last panel of that tile.
using StoreFn = void (*)(void* ctx, const float* tile, std::int64_t i0, std::int64_t j0, std::int64_t mr, std::int64_t nr,
                         bool first, bool last);

struct GemmA {
  PackAFn pack;
  const void* ctx;
};
struct GemmB {
  PackBFn pack;
  const void* ctx;
};
// Either a column-major destination (store == nullptr) or a store callback.
struct GemmC {
  float* data = nullptr;
  std::int64_t ld = 0;
  bool accumulate = false;  // C += op(A) op(B)
  // Added to every column of C with the last depth panel, while each tile is still in cache (a
  // layer's bias without a second pass over C); only with a column-major destination.
  const float* rowBias = nullptr;
  StoreFn store = nullptr;
  void* ctx = nullptr;
};

enum class Transpose { No, Yes };

// A plain column-major matrix as a GEMM operand.
struct GemmOperand {
  const float* data = nullptr;
  std::int64_t ld = 0;  // leading dimension of the stored (untransposed) matrix
  Transpose transpose = Transpose::No;
};
GemmA gemmA(const GemmOperand& a);  // `a` must outlive the GEMM call
GemmB gemmB(const GemmOperand& b);

// B packed once, reused by many GEMMs (e.g. a layer's weights across its sub-batches). A bf16
// operand on bf16 hardware is kept in a bf16 form (half the memory; gemm_kernels.h), else as
// fp32. The form is fixed when it is packed (the GEMMs that use it follow it): a lowered
// limitGemmIsa applies from the next pack, and the precision given to gemm() must be the one it
// was packed at.
// A plain fp32 matrix (gemmB) on a path whose kernels read B where it lies (AVX-512) is not
// copied at all: PackedB keeps the operand, whose data must then stay as it is while the GEMMs
// that use it run.
class PackedB {
public:
  void pack(GemmB b, std::int64_t k, std::int64_t n, util::Precision precision);
  std::int64_t k() const { return m_k; }
  std::int64_t n() const { return m_n; }
  bool bf16Pairs() const { return m_form != 0; }  // packed in a bf16 form, pairs or columns (gemm_kernels.h)
  int form() const { return m_form; }
  const float* panel(std::int64_t jc, std::int64_t pc) const;                // fp32 form
  const std::uint32_t* pairPanel(std::int64_t jc, std::int64_t pc) const;    // a bf16 form
  const void* formPanel(std::int64_t jc, std::int64_t pc) const;             // whichever it holds
  const GemmOperand* plain() const { return m_plain ? &*m_plain : nullptr; }  // kept, not copied

private:
  std::optional<GemmOperand> m_plain;
  std::int64_t m_k = 0, m_n = 0;
  int m_form = 0;  // detail::Form
  std::vector<float> m_data;
  std::vector<std::uint32_t> m_pairs;
};

void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, GemmB b, const GemmC& c,
          util::Precision precision = util::Precision::FP32);
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmA a, const PackedB& b, const GemmC& c,
          util::Precision precision = util::Precision::FP32);

// Plain matrices: C (m x n, leading dimension ldc) (+)= op(A) (m x k) * op(B) (k x n).
void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmOperand a, GemmOperand b, float* c, std::int64_t ldc,
           bool accumulate, util::Precision precision = util::Precision::FP32);

}  // namespace core::nn
