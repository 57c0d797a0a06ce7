#include "core/nn/gemm_kernels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels_isa.h"

#if ACCELLAB_AMX_KERNELS
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace core::nn {
namespace {

constexpr std::int64_t kMr = kGemmMr, kNr = kGemmNr;

GemmIsa initialLimit();

// Linux hands AMX's 8 KiB of tile state to a process that asks (arch_prctl, Linux 5.16+); until
// then the instructions fault. The permission is the process's, for all its threads; it is asked
// only where ACCELLAB_GEMM_ISA allows AMX (it makes every signal frame larger).
bool amxPermitted() {
#if ACCELLAB_AMX_KERNELS
  if (initialLimit() < GemmIsa::Amx) return false;
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return ::syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

#if ACCELLAB_X86_KERNELS
// Whether AVX512_BF16's dot products beat fp32 FMAs on this core: twice the multiply-adds an
// instruction, but Intel's cores (Cooper Lake, Sapphire Rapids) issue them on one port where they
// issue FMAs on two, AMD's Zen 4 and 5 on as many. A few milliseconds of each in registers.
bool dotProductsPay() {
  constexpr std::int64_t kRounds = 100'000;  // about 0.3 ms a try on a 4 GHz core
  constexpr int kTries = 7;
  const auto rate = [](float (*chains)(std::int64_t, float), double flopsPerRound) {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float sink = chains(kRounds, 1.0f);
    (void)sink;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s > 0 ? flopsPerRound * kRounds / s : 0.0;
  };
  rate(detail::chainsAvx512, 1);  // warm the core up
  // The best of several tries of each, taken in turns: a try the OS or the hypervisor interrupted
  // reads slow, and a single slow bf16 try decided for the whole process (on a shared Zen 4 VM,
  // now and then a bf16 run fell to emulation: 40% slower, and other sums).
  double bf16 = 0, fp32 = 0;
  for (int t = 0; t < kTries; ++t) {
    bf16 = std::max(bf16, rate(detail::chainsBf16, detail::kChainFlopsBf16));
    fp32 = std::max(fp32, rate(detail::chainsAvx512, detail::kChainFlopsAvx512));
  }
  return bf16DotProductsPay(bf16, fp32);
}
#endif

GemmIsa detect() {
#if ACCELLAB_X86_KERNELS
  __builtin_cpu_init();  // GCC's checks include the OS's saving of the wider registers (XCR0)
  if (__builtin_cpu_supports("avx512f")) {
    // The bf16 forms' packers and conversions shuffle and store 16-bit words (AVX-512BW), which
    // every CPU with AVX512_BF16 has; a CPU that had not would run fp32 kernels.
    if (!__builtin_cpu_supports("avx512bf16") || !__builtin_cpu_supports("avx512bw")) return GemmIsa::Avx512;
    if (__builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16") && amxPermitted()) return GemmIsa::Amx;
    // Where the dot products are no faster, bf16 is emulated on the fp32 kernel: the same
    // rounding, without the cost of packing pairs (colab-cnn 478 images/s on them against 603).
    // ACCELLAB_GEMM_ISA=avx512-bf16 asks for them whatever they cost.
    return initialLimit() == GemmIsa::Avx512Bf16 || dotProductsPay() ? GemmIsa::Avx512Bf16 : GemmIsa::Avx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return GemmIsa::Avx2;
#endif
  return GemmIsa::Portable;
}

// The limit starts at the environment's choice (a benchmark of another path needs no rebuild);
// a name that is not a path is said once on stderr and ignored.
GemmIsa readLimit() {
  const char* env = std::getenv("ACCELLAB_GEMM_ISA");
  if (!env || !*env) return GemmIsa::Amx;
  if (const auto isa = parseGemmIsa(env)) return *isa;
  std::fprintf(stderr,
               "accellab: ACCELLAB_GEMM_ISA=%s is not one of portable, avx2, avx512, avx512-bf16, amx; it is ignored\n",
               env);
  return GemmIsa::Amx;
}

GemmIsa initialLimit() {
  static const GemmIsa l = readLimit();
  return l;
}

std::atomic<int>& limit() {
  static std::atomic<int> l{static_cast<int>(initialLimit())};
  return l;
}

// ---- portable --------------------------------------------------------------------------

void kernelPortable(std::int64_t kc, const float* __restrict a, const float* __restrict b, float* c,
                    std::int64_t ldc, bool accumulate, const float* bias, std::int64_t mr, std::int64_t nr,
                    float* tile) {
  float acc[kNr][kMr] = {};
  for (std::int64_t p = 0; p < kc; ++p, a += kMr, b += kNr)
    for (std::int64_t j = 0; j < kNr; ++j)
      for (std::int64_t i = 0; i < kMr; ++i) acc[j][i] += a[i] * b[j];
  if (tile) {
    std::copy_n(&acc[0][0], kMr * kNr, tile);
    return;
  }
  detail::addTile(&acc[0][0], c, ldc, accumulate, bias, mr, nr);
}

float chainsPortable(std::int64_t iterations, float seed) {
  float acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = seed * static_cast<float>(i + 1);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < 12; ++i) acc[i] = acc[i] * 0.999f + 1e-3f;
  float s = 0;
  for (float v : acc) s += v;
  return s;
}

}  // namespace

bool bf16DotProductsPay(double bf16Flops, double fp32Flops) { return bf16Flops >= kBf16DotProductGain * fp32Flops; }

const char* gemmIsaName(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::Portable: return "portable";
    case GemmIsa::Avx2: return "avx2";
    case GemmIsa::Avx512: return "avx512";
    case GemmIsa::Avx512Bf16: return "avx512-bf16";
    case GemmIsa::Amx: return "amx";
  }
  return "portable";
}

std::optional<GemmIsa> parseGemmIsa(std::string_view name) {
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx})
    if (name == gemmIsaName(isa)) return isa;
  return std::nullopt;
}

GemmIsa detectedGemmIsa() {
  static const GemmIsa isa = detect();
  return isa;
}

GemmIsa gemmIsa() {
  return static_cast<GemmIsa>(std::min(static_cast<int>(detectedGemmIsa()), limit().load(std::memory_order_relaxed)));
}

GemmIsa limitGemmIsa(GemmIsa most) { return static_cast<GemmIsa>(limit().exchange(static_cast<int>(most))); }

bool bf16OnHardware() { return gemmIsa() >= GemmIsa::Avx512Bf16; }

std::string gemmPathText(util::Precision precision) {
  const GemmIsa isa = gemmIsa();
  std::string fp32;
  switch (isa) {
    case GemmIsa::Portable: fp32 = "portable fp32 kernel"; break;
    case GemmIsa::Avx2: fp32 = "AVX2 fp32 FMA"; break;
    case GemmIsa::Avx512:
    case GemmIsa::Avx512Bf16:
    case GemmIsa::Amx: fp32 = "AVX-512 fp32 FMA"; break;
  }
  switch (precision) {
    case util::Precision::FP32: return fp32;
    case util::Precision::BF16:
      if (isa == GemmIsa::Amx) return "AMX bf16 tiles (TDPBF16PS), fp32 accumulation";
      if (isa == GemmIsa::Avx512Bf16) return "AVX512_BF16 bf16 dot products, fp32 accumulation";
      if (detectedGemmIsa() >= GemmIsa::Avx512Bf16)
        return fp32 + " on operands rounded to bf16 (this CPU's bf16 units are off: ACCELLAB_GEMM_ISA or a limit;"
                      " emulated, no faster than fp32)";
      return fp32 + " on operands rounded to bf16 (no AMX here, and no AVX512_BF16 faster than fp32 FMAs: emulated, no"
                    " faster than fp32)";
    default:
      return fp32 + " on operands rounded to " + util::precisionName(precision) + " (emulated, no faster than fp32)";
  }
}

namespace detail {

Fp32Kernel fp32Kernel() {
#if ACCELLAB_X86_KERNELS
  switch (gemmIsa()) {
    case GemmIsa::Amx:
    case GemmIsa::Avx512Bf16:
    case GemmIsa::Avx512: return kernelAvx512;
    case GemmIsa::Avx2: return kernelAvx2;
    case GemmIsa::Portable: break;
  }
#endif
  return kernelPortable;
}

Fp32PlainKernel fp32PlainKernel(bool transposed) {
#if ACCELLAB_X86_KERNELS
  if (gemmIsa() >= GemmIsa::Avx512) return transposed ? kernelAvx512Rows : kernelAvx512Columns;
#endif
  (void)transposed;
  return nullptr;
}

Bf16Kernel2 amxKernel2() {
#if ACCELLAB_AMX_KERNELS
  if (detectedGemmIsa() >= GemmIsa::Amx) return kernelAmx2;
#endif
  return nullptr;
}

void releaseTiles() {
#if ACCELLAB_AMX_KERNELS
  releaseTilesNow();
#endif
}

Bf16Kernel bf16Kernel(Form form) {
#if ACCELLAB_AMX_KERNELS
  if (form == Form::AmxTiles && detectedGemmIsa() >= GemmIsa::Amx) return kernelAmx;
#endif
#if ACCELLAB_X86_KERNELS
  if (form == Form::Bf16Pairs && detectedGemmIsa() >= GemmIsa::Avx512Bf16) return kernelBf16;
  if (form == Form::Bf16Columns && detectedGemmIsa() >= GemmIsa::Avx512Bf16) return kernelBf16Columns;
#endif
  (void)form;
  return nullptr;
}

double peakChains(bool bf16, std::int64_t iterations, float seed, float* sink) {
  [[maybe_unused]] const GemmIsa isa = gemmIsa();
#if ACCELLAB_AMX_KERNELS
  if (bf16 && isa == GemmIsa::Amx) {  // AMX's rate is so high that a tenth of the rounds is enough
    *sink = chainsAmx(iterations / 10, seed);
    return kChainFlopsAmx * static_cast<double>(iterations / 10);
  }
#endif
#if ACCELLAB_X86_KERNELS
  if (bf16) {
    if (isa != GemmIsa::Avx512Bf16) return 0;
    *sink = chainsBf16(iterations, seed);
    return kChainFlopsBf16 * static_cast<double>(iterations);
  }
  if (isa >= GemmIsa::Avx512) {
    *sink = chainsAvx512(iterations, seed);
    return kChainFlopsAvx512 * static_cast<double>(iterations);
  }
  if (isa == GemmIsa::Avx2) {
    *sink = chainsAvx2(iterations, seed);
    return kChainFlopsAvx2 * static_cast<double>(iterations);
  }
#endif
  if (bf16) return 0;
  *sink = chainsPortable(iterations, seed);
  return kChainFlopsPortable * static_cast<double>(iterations);
}

}  // namespace detail
}  // namespace core::nn
