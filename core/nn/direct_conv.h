#pragma once
// Direct stride-1 convolution for layers with few channels (LeNet, first layers): there a
// GEMM spends more time packing patches than multiplying. Vectorised along output rows
// (16 pixels per vector), several filters per pass so each input load feeds many FMAs; where
// the rows are short and the filters fill whole vectors (LeNet's 10-pixel rows, 16 filters),
// along the filters instead. The kernels are chosen at run time as the GEMM's are: AVX-512,
// AVX2 + FMA or portable lanes (simdLanes(), simd_regions.h).
#include <cstdint>

#include "core/nn/activation.h"
#include "core/nn/conv_geometry.h"
#include "core/util/precision.h"

namespace core::nn {

// y (samples x filters x outPixels) = conv(padded x, w) + bias, then the activation.
// `weights` is filters x patchSize, column-major (w[f + filters * tap]). fp32 arithmetic: a
// caller emulating a 16-bit precision gives it rounded values.
void directConvForward(const ConvPlan& plan, const float* padded, int samples, const float* weights, int filters,
                       const float* bias, Activation activation, float* y);

// dW (filters x patchSize, column-major) = sum over samples and pixels of gy * patches;
// overwritten unless `accumulate`.
void directConvWeightGradient(const ConvPlan& plan, const float* padded, int samples, const float* gy, int filters,
                              float* dw, bool accumulate);

// Whether a direct convolution at `precision` runs the bf16 kernels below: bf16, where the GEMM
// multiplies with AVX512_BF16 dot products (GemmIsa::Avx512Bf16, measured to pay; not on AMX).
bool directConvOnBf16Hardware(util::Precision precision);

// The forward pass in bf16 (operands rounded by the hardware's conversion: as roundToPrecision,
// to nearest even, but denormals to zero, which the dot products do anyway; sums in fp32) from the
// unpadded `images` (samples x channels x h x w), padded sample by sample. Where `kept` is not
// null it receives each sample's padded image in bf16 (plan.paddedSize() values a sample) for
// the weight gradient. Throws util::Error where the CPU cannot run them (a limit lowered after
// the caller chose this path does not stop them).
void directConvForwardBf16(const ConvPlan& plan, const float* images, int samples, const float* weights, int filters,
                           const float* bias, Activation activation, float* y, std::uint16_t* kept);

// The weight gradient in bf16 from the padded images the forward pass kept and gy (fp32,
// rounded here); as directConvWeightGradient otherwise.
void directConvWeightGradientBf16(const ConvPlan& plan, const std::uint16_t* kept, int samples, const float* gy,
                                  int filters, float* dw, bool accumulate);

}  // namespace core::nn
