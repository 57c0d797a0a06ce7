#pragma once
// Precision: which peak a device reaches at fp32 / tf32 / fp16 / bf16 (mixed precision as the
// frameworks run it), with the rule for precisions a device has no units for, and how many
// bytes an activation takes.
#include <string>

#include "core/hw/device_spec.h"
#include "core/util/precision.h"

namespace core::sim {

struct PeakChoice {
  double tflops = 0;     // per unit (CPU: per vCPU)
  std::string note;      // empty when the device has units for this precision
  util::Precision ranAs = util::Precision::FP32;  // whose peak it is: the precision asked, or its fallback
};

// The rules, in order:
//  fp32: peak_tflops_fp32; a TPU (systolic matrix units, hw::MatrixUnit::Systolic) has none,
//        and XLA runs fp32 matmuls as bf16 passes at its default precision: its bf16 peak.
//  tf32: peak_tflops_tf32 (Ampere+ tensor cores); otherwise the fp32 peak.
//  fp16: peak_tflops_fp16 (tensor cores, or P100's packed fp16); otherwise fp32 (K80, CPUs:
//        no fp16 arithmetic, the framework computes in fp32); a TPU runs bf16 instead.
//  bf16: peak_tflops_bf16; otherwise the fp32 peak (V100 and older have no bf16 units).
//  fp8:  peak_tflops_fp8 (Hopper+, MI300, Gaudi 2+, TPU v5p/v6e); otherwise bf16, fp16.
//  fp4:  peak_tflops_fp4 (Blackwell, MI355X: NVFP4/MXFP4); otherwise fp8, bf16, fp16, as the
//        NVFP4/MXFP4 and fp8 recipes fall back.
// A device with no 8- or 16-bit units (K80, CPUs) has no recipe for fp8 or fp4: refused.
// Throws core::util::Error naming the device when no peak applies at all.
PeakChoice peakFor(const hw::DeviceSpec& d, util::Precision p);

// Bytes per activation element: 2 for fp16/bf16/fp8/fp4 (mixed precision stores activations in
// 16 bits; fp8 and fp4 cast only GEMM inputs), 4 for fp32/tf32.
double activationBytes(util::Precision p);

}  // namespace core::sim
