#pragma once
// Direct stride-1 convolution for layers with few channels (LeNet, first layers): there a
// GEMM spends more time packing patches than multiplying. Vectorised along output rows
// (16 pixels per vector), several filters per pass so each input load feeds many FMAs. The
// kernels are chosen at run time as the GEMM's are: AVX-512, AVX2 + FMA or portable lanes
// (simdLanes(), simd_regions.h).
#include <cstdint>

#include "core/nn/activation.h"
#include "core/nn/conv_geometry.h"
#include "core/util/precision.h"

namespace core::nn {

// Whether the kernels multiply in bf16 hardware at `precision`: bf16 on a CPU whose bf16 dot
// products the GEMM uses (bf16OnHardware, AVX512_BF16). There they round their fp32 operands to
// bf16 themselves (as roundToPrecision does) and sum in fp32; elsewhere they multiply the fp32
// values they are given, which a caller emulating a 16-bit precision has rounded.
bool directConvOnBf16Hardware(util::Precision precision);

// y (samples x filters x outPixels) = conv(padded x, w) + bias, then the activation.
// `weights` is filters x patchSize, column-major (w[f + filters * tap]).
void directConvForward(const ConvPlan& plan, const float* padded, int samples, const float* weights, int filters,
                       const float* bias, Activation activation, float* y,
                       util::Precision precision = util::Precision::FP32);

// dW (filters x patchSize, column-major) = sum over samples and pixels of gy * patches;
// overwritten unless `accumulate`.
void directConvWeightGradient(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters,
                              float* dw, bool accumulate, util::Precision precision = util::Precision::FP32);

}  // namespace core::nn
