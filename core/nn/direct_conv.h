#pragma once
// Direct stride-1 convolution for layers with few channels (LeNet, first layers): there a
// GEMM spends more time packing patches than multiplying. Vectorised along output rows
// (16 pixels per vector), several filters per pass so each input load feeds many FMAs. The
// kernels are chosen at run time as the GEMM's are: AVX-512, AVX2 + FMA or portable lanes
// (simdLanes(), simd_regions.h).
#include <cstdint>

#include "core/nn/activation.h"
#include "core/nn/conv_geometry.h"

namespace core::nn {

// y (samples x filters x outPixels) = conv(padded x, w) + bias, then the activation.
// `weights` is filters x patchSize, column-major (w[f + filters * tap]).
void directConvForward(const ConvPlan& plan, const float* padded, int samples, const float* weights, int filters,
                       const float* bias, Activation activation, float* y);

// dW (filters x patchSize, column-major) = sum over samples and pixels of gy * patches;
// overwritten unless `accumulate`.
void directConvWeightGradient(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters,
                              float* dw, bool accumulate);

}  // namespace core::nn
