#pragma once
// Numeric precision of a training run. fp16/bf16 mean mixed precision as frameworks run it:
// GEMM inputs in the 16-bit format, accumulation and master weights in fp32. fp8 means what
// Transformer Engine and MaxText run: fp8 GEMMs (E4M3/E5M2 with per-tensor scaling), bf16
// everywhere else; the simulator models it, the CPU engine does not train in it. fp4 means what
// the 2025-26 recipes run on Blackwell and MI355X (NVFP4 / MXFP4): 4-bit matmuls with a shared
// scale per block of 16 or 32 values, bf16 elsewhere; a device without fp4 units runs fp8 (or
// bf16) as those recipes fall back. Simulated only, as fp8.
#include <optional>
#include <string>
#include <string_view>

namespace core::util {

enum class Precision { FP32, TF32, FP16, BF16, FP8, FP4 };

inline const char* precisionName(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::FP8: return "fp8";
    case Precision::FP4: return "fp4";
  }
  return "fp32";
}

inline std::optional<Precision> parsePrecision(std::string_view s) {
  if (s == "fp32") return Precision::FP32;
  if (s == "tf32") return Precision::TF32;
  if (s == "fp16") return Precision::FP16;
  if (s == "bf16") return Precision::BF16;
  if (s == "fp8") return Precision::FP8;
  if (s == "fp4") return Precision::FP4;
  return std::nullopt;
}

}  // namespace core::util
