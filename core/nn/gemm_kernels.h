#pragma once
// The GEMM's micro-kernels, one per instruction set, chosen at run time from the CPU's
// features: one binary (the .deb is built for x86-64-v3) runs AVX-512, AVX512_BF16 and AMX code
// where the CPU has it and AVX2 or portable code where it does not. Each kernel is compiled
// for its own target (GCC's target attribute), so nothing outside it assumes the wider ISA.
// The choice and the portable kernel: gemm_kernels.cpp; the x86 fp32 and AVX512_BF16 kernels:
// gemm_kernels_simd.cpp; AMX: gemm_kernels_amx.cpp; the bf16 packers: gemm_pack_bf16.cpp;
// the fp32 packers of plain operands: gemm_pack_plain.cpp.
//
// Kernels compute one kGemmMr x kGemmNr tile from packed strips (gemm.h) and either write it
// to a column-major C (mr x nr valid, accumulating or not, plus `bias` of the rows where it is
// given: (C + tile) + bias) or, where `tile` is non-null, to that kGemmMr x kGemmNr column-major
// buffer (the bias ignored). A strip of at most 16 rows runs half the AVX-512 kernels.
//
// The bf16 kernels take strips of bf16 pairs: each 32-bit word holds the operand at depth 2q
// in its low half and at depth 2q + 1 in its high half (zero past an odd depth):
// - AVX512_BF16's dot product (VDPBF16PS) multiplies two depths per fp32 lane. Twice an fp32
//   FMA's multiply-adds per instruction, but Intel's cores issue it on one port where they issue
//   FMAs on two: it pays on AMD's Zen 4 and 5, not on Intel's.
// - AMX (Sapphire Rapids and later) multiplies whole tiles: TDPBF16PS does 8 x 16 x 32 bf16
//   multiply-adds into fp32 at a time, about ten times AVX-512's fp32 rate on one core. The
//   tile is computed transposed (C^T = B^T A^T) so it lands column-major as every other
//   kernel's: A strips stay pairs (16 rows of a tile are 16 of its lanes), B strips become rows
//   of 16 pairs per column, and both are padded with zeros to whole tiles of 16 pairs.
// AVX512_BF16's B strips hold word (q, j) at q * kGemmNr + j (pairs) or, from a plain untransposed
// B, at j * depth + q (columns, below).
#include <cstdint>

namespace core::nn::detail {

// How a GEMM's packed operands are stored. Bf16Columns is Bf16Pairs with B's strips kept column
// by column (word (q, j) of a strip at j * depth + q, A's strips as Bf16Pairs): a plain
// column-major B converts to it in order, where the pairs form needs a 16 x 16 transpose of words
// (the transposing packer took a tenth of a vit-tiny bf16 step); the kernel's broadcasts come
// from 8 columns instead of one row, as the fp32 kernel's reading a plain B where it lies.
enum class Form { Fp32, Bf16Pairs, AmxTiles, Bf16Columns };

using Fp32Kernel = void (*)(std::int64_t kc, const float* a, const float* b, float* c, std::int64_t ldc,
                            bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                            float* tile);
// An fp32 kernel reading B's strip from a plain matrix instead of a packed strip: value (p, j)
// of the strip at b[p + j * ldb] (B as stored) or b[j + p * ldb] (B transposed); 8 columns.
using Fp32PlainKernel = void (*)(std::int64_t kc, const float* a, const float* b, std::int64_t ldb, float* c,
                                 std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
                                 std::int64_t nr, float* tile);
// `depth` in the form's units (packedDepth).
using Bf16Kernel = void (*)(std::int64_t depth, const std::uint32_t* a, const std::uint32_t* b, float* c,
                            std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr,
                            std::int64_t nr, float* tile);

// AMX over two adjacent B strips (b1 = b0 + a strip), the first whole: C columns from c0 and
// c1 (or tiles tile0, tile1); nr1 columns valid in the second.
using Bf16Kernel2 = void (*)(std::int64_t depth, const std::uint32_t* a, const std::uint32_t* b0, const std::uint32_t* b1,
                             float* c0, float* c1, std::int64_t ldc, bool accumulate, std::int64_t mr, std::int64_t nr1,
                             float* tile0, float* tile1);
Bf16Kernel2 amxKernel2();  // null where the CPU has no AMX
// Lets this thread's AMX tile state go (after a GEMM on tiles; the next one configures again).
void releaseTiles();

// The fp32 kernel of the current path (gemmIsa()): portable, AVX2 + FMA or AVX-512.
Fp32Kernel fp32Kernel();
// The plain-B fp32 kernel of the current path (`transposed`: B's rows contiguous); null where the
// path packs B (AVX2 and portable: their kernels read 8 columns a step from one strip).
Fp32PlainKernel fp32PlainKernel(bool transposed);
// The bf16 kernel for a form (Bf16Pairs, Bf16Columns: AVX512_BF16; AmxTiles: AMX); null where the
// CPU has none.
Bf16Kernel bf16Kernel(Form form);

// Words (or floats) a packed strip kc deep takes per row or column.
inline std::int64_t packedDepth(Form form, std::int64_t kc) {
  switch (form) {
    case Form::Fp32: return kc;
    case Form::Bf16Pairs:
    case Form::Bf16Columns: return (kc + 1) / 2;
    case Form::AmxTiles: return ((kc + 1) / 2 + 15) / 16 * 16;
  }
  return kc;
}

// `strips` consecutive packed fp32 strips of A (kGemmMr wide) or B (kGemmNr wide), each kc
// deep (value (i, p) at p * width + i), rewritten in a bf16 form, each strip
// width * packedDepth(form, kc) words. Rounds to nearest, ties to even, as roundToPrecision.
// The columns form is packed only from plain matrices (packPlainB): packBf16B throws for it.
void packBf16A(const float* src, std::int64_t kc, std::int64_t strips, std::uint32_t* dst, Form form);
void packBf16B(const float* src, std::int64_t kc, std::int64_t strips, std::uint32_t* dst, Form form);

// Plain column-major operands straight to a bf16 form without the fp32 copy: A from (i0, p0)
// (`a` points there), mc x kc, stored as is (value (i, p) at a[i + p * ld]) or transposed (at
// a[p + i * ld]); B from (p0, j0), kc x nc, likewise (b[p + j * ld] or b[j + p * ld]). False
// (nothing written) where the form has no such packer.
bool packPlainA(const float* a, std::int64_t ld, bool transposed, std::int64_t mc, std::int64_t kc, std::uint32_t* dst,
                Form form);
bool packPlainB(const float* b, std::int64_t ld, bool transposed, std::int64_t kc, std::int64_t nc, std::uint32_t* dst,
                Form form);

// The fp32 packers of a plain operand (the GemmOperand that gemmA and gemmB take as ctx): A's
// block, mc x kc from (i0, p0), as kGemmMr-wide strips; B's panel, kc x nc from (p0, j0), as
// kGemmNr-wide strips; zero-padded to whole strips (gemm_pack_plain.cpp). The GEMM knows a plain
// operand by its packer, and reads it where it lies or converts it as it reads.
void packMatrixA(const void* ctx, std::int64_t i0, std::int64_t p0, std::int64_t mc, std::int64_t kc, float* dst);
void packMatrixB(const void* ctx, std::int64_t p0, std::int64_t j0, std::int64_t kc, std::int64_t nc, float* dst);

// Conversions for the kernels outside the GEMM that multiply bf16 (the direct convolution),
// rounded as the plain packers round (the hardware's conversion: to nearest even, denormals to
// zero); they need AVX512_BF16 (bf16OnHardware) and throw util::Error elsewhere. n values of lo
// and hi to n words of pairs (lo in the low half; a null hi gives zeros), in the same pass to n
// bf16 bit patterns of each where loOut / hiOut are given; and n values to n bf16 bit patterns.
void toBf16Pairs(const float* lo, const float* hi, std::int64_t n, std::uint32_t* out, std::uint16_t* loOut = nullptr,
                 std::uint16_t* hiOut = nullptr);
void toBf16(const float* src, std::int64_t n, std::uint16_t* out);

// The peak loop: `iterations` rounds of independent multiply-add chains in registers (or AMX
// tiles), on the current path's widest fp32 FMA or its bf16 instruction. Returns the flops done
// (0 where the path has no bf16 hardware); the result goes to *sink so nothing is optimised away.
double peakChains(bool bf16, std::int64_t iterations, float seed, float* sink);

}  // namespace core::nn::detail
