#include "core/sim/precision_model.h"

#include "core/util/error.h"

namespace core::sim {

PeakChoice peakFor(const hw::DeviceSpec& d, util::Precision p) {
  using util::Precision;
  // Systolic matrix units (a TPU's MXU) have no fp32 or fp16 path: XLA runs those as bf16.
  const bool tpu = hw::traitsOf(d).matrixUnit == hw::MatrixUnit::Systolic;
  const std::string name = util::precisionName(p);
  auto fallback = [&](const std::optional<double>& v, const char* why, Precision ranAs) -> PeakChoice {
    if (!v) throw util::Error("device '" + d.id + "' has no peak that applies to " + name);
    return {*v, d.id + " " + why, ranAs};
  };
  if (const auto native = hw::peakTflops(d, p)) return {*native, "", p};
  switch (p) {
    case Precision::FP32:
      if (tpu) return fallback(d.peakTflopsBf16, "has no fp32 matrix units: XLA runs fp32 matmuls as bf16 passes", Precision::BF16);
      break;
    case Precision::TF32:
      if (d.peakTflopsFp32) return fallback(d.peakTflopsFp32, "has no TF32 tensor cores: runs at its fp32 peak", Precision::FP32);
      if (tpu) return fallback(d.peakTflopsBf16, "has no TF32: runs bf16 passes", Precision::BF16);
      break;
    case Precision::FP16:
      if (tpu) return fallback(d.peakTflopsBf16, "has no fp16: mixed precision runs in bf16", Precision::BF16);
      if (d.peakTflopsFp32) return fallback(d.peakTflopsFp32, "has no fast fp16 arithmetic: runs at its fp32 peak", Precision::FP32);
      break;
    case Precision::BF16:
      if (d.peakTflopsFp32) return fallback(d.peakTflopsFp32, "has no bf16 units: runs at its fp32 peak", Precision::FP32);
      break;
    case Precision::FP4:
      // The NVFP4/MXFP4 recipes fall back to fp8 matmuls, then bf16, where 4-bit units are absent.
      if (d.peakTflopsFp8) return fallback(d.peakTflopsFp8, "has no fp4 units: runs its fp8 peak", Precision::FP8);
      if (d.peakTflopsBf16) return fallback(d.peakTflopsBf16, "has no fp4 or fp8 units: runs its bf16 peak", Precision::BF16);
      if (d.peakTflopsFp16) return fallback(d.peakTflopsFp16, "has no fp4, fp8 or bf16 units: runs its fp16 peak", Precision::FP16);
      if (d.peakTflopsFp32)
        throw util::Error("device '" + d.id + "' has no 4-, 8- or 16-bit units: no fp4 recipe runs there (train at fp32)");
      break;
    case Precision::FP8:
      if (d.peakTflopsBf16) return fallback(d.peakTflopsBf16, "has no fp8 units: runs its bf16 peak", Precision::BF16);
      if (d.peakTflopsFp16) return fallback(d.peakTflopsFp16, "has no fp8 or bf16 units: runs its fp16 peak", Precision::FP16);
      if (d.peakTflopsFp32)
        throw util::Error("device '" + d.id + "' has no 8- or 16-bit units: no fp8 recipe runs there (train at fp32)");
      break;
  }
  throw util::Error("device '" + d.id + "' has no peak that applies to " + name);
}

double activationBytes(util::Precision p) {
  // fp8 and fp4 keep activations in bf16 between their low-bit GEMMs.
  return p == util::Precision::FP16 || p == util::Precision::BF16 || p == util::Precision::FP8 ||
                 p == util::Precision::FP4
             ? 2.0
             : 4.0;
}

}  // namespace core::sim
