#pragma once
// Internal to the engine's kernels: how code for an instruction set newer than the build's
// baseline (the .deb is built for x86-64-v3) is compiled and chosen at run time, as the GEMM's
// kernels are. Two means, for two sizes of code:
// - Whole kernel files written once on a lane type (a .inc: direct convolution, Winograd
//   transforms) are included once per set, each copy in its own namespace inside a `#pragma GCC
//   push_options` / `target(...)` region; simdLanes() says which copy runs. Clang ignores GCC's
//   target pragmas: there only the portable lanes are built (ACCELLAB_SIMD_REGIONS is 0).
// - Single functions (packers, transposes, pooling's pass) take a target attribute, which GCC and
//   Clang both honour (ACCELLAB_X86_KERNELS); avx512Runs() says whether they may run.
#include <cstdint>

#include "core/nn/gemm.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ACCELLAB_SIMD_REGIONS 1
#else
#define ACCELLAB_SIMD_REGIONS 0
#endif

// Single functions compiled for one instruction set by target attribute, whatever the build's
// baseline (GCC and Clang on x86-64): the GEMM's kernels and packers, the convolution's patch
// packers, pooling's AVX-512 pass. Each is called only where the run-time choice allows it
// (avx512Runs below, or the GEMM's own choice).
#if defined(__x86_64__) && defined(__GNUC__)
#define ACCELLAB_X86_KERNELS 1
#define ACCELLAB_TARGET(isa) __attribute__((target(isa)))
#else
#define ACCELLAB_X86_KERNELS 0
#endif

namespace core::nn {

// The first n of 16 lanes (n clamped to 0..16), as an AVX-512 mask.
inline std::uint16_t firstLanes(std::int64_t n) {
  return n >= 16 ? std::uint16_t{0xffff} : n <= 0 ? std::uint16_t{0} : static_cast<std::uint16_t>((1u << n) - 1u);
}

// Whether AVX-512F code runs now: the GEMM runs AVX-512 or better (so ACCELLAB_GEMM_ISA and
// limitGemmIsa lower it too). Functions guarded by it use AVX-512F alone, as the check does.
inline bool avx512Runs() { return gemmIsa() >= GemmIsa::Avx512; }

enum class SimdLanes { Portable, Avx2, Avx512 };

// AVX-512F where the GEMM runs AVX-512 or better, AVX2 + FMA where it runs AVX2, else portable
// (so ACCELLAB_GEMM_ISA and limitGemmIsa lower these kernels too).
inline SimdLanes simdLanes() {
#if ACCELLAB_SIMD_REGIONS
  const GemmIsa isa = gemmIsa();
  if (isa >= GemmIsa::Avx512) return SimdLanes::Avx512;
  if (isa == GemmIsa::Avx2) return SimdLanes::Avx2;
#endif
  return SimdLanes::Portable;
}

inline const char* simdLanesName(SimdLanes lanes) {
  switch (lanes) {
    case SimdLanes::Avx512: return "avx512";
    case SimdLanes::Avx2: return "avx2";
    case SimdLanes::Portable: break;
  }
  return "portable";
}

}  // namespace core::nn
