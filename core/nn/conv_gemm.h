#pragma once
// The convolution as implicit GEMMs: packers that read image patches and channel-major
// maps straight from the activations, and stores that write channel-major outputs (with
// bias and activation) or scatter-add column gradients back into images. No im2col buffer.
//
// Rows of the pixel dimension are numbered over a chunk of samples: row r is pixel
// r % pixels of sample r / pixels.
#include <cstdint>

#include "core/nn/activation.h"
#include "core/nn/conv_geometry.h"
#include "core/nn/gemm.h"

namespace core::nn {

// Copies `samples` images into the plan's zero-padded layout (paddedSize() floats each).
void padImages(const ConvPlan& plan, const float* images, int samples, float* padded);
// Largest number of samples one GEMM may cover (packing offsets are 32-bit).
int maxSamplesPerGemm(const ConvPlan& plan);

// Padded images (samples x paddedSize()) seen through a convolution's windows.
struct ConvPatches {
  const ConvPlan* plan;
  const float* padded;
  int samples;
};
GemmA patchesAsA(const ConvPatches& p);  // (samples * outPixels) x patchSize
GemmB patchesAsB(const ConvPatches& p);  // depth samples * outPixels, columns patchSize

// Channel-major maps (samples x channels x pixels), e.g. a layer's output gradient.
struct ChannelMaps {
  const float* data;
  std::int64_t channels;
  std::int64_t pixels;
  int samples;
};
GemmA mapsAsA(const ChannelMaps& m);            // (samples * pixels) x channels
GemmA mapsTransposedAsA(const ChannelMaps& m);  // channels x (samples * pixels)

// Stores C (rows: samples * pixels, columns: channels) into channel-major maps; the last
// depth panel adds `bias` (may be null) and applies `activation`.
struct MapsStore {
  float* data;
  std::int64_t channels;
  std::int64_t pixels;
  const float* bias;
  Activation activation;
};
GemmC storeToMaps(MapsStore& s);

// Adds C (rows: samples * outPixels, columns: patchSize) into the images' gradient (col2im).
struct PatchGradientStore {
  const ConvPlan* plan;
  float* images;
};
GemmC storePatchGradient(PatchGradientStore& s);

// The geometry of the input gradient as a stride-1 convolution of the output gradient with
// the flipped kernel ("full" correlation); used when stride is 1, padding < kernel size and
// there are enough input channels to fill the GEMM's columns.
bool hasTransposedForm(const ConvGeometry& g);
ConvGeometry transposedGeometry(const ConvGeometry& g, int filters);
// B for that convolution: depth (filters, ky, kx) of the flipped kernel, columns = input
// channels; `weights` is filters x patchSize (column-major), as Conv2D stores it.
struct FlippedWeights {
  const float* weights;
  const ConvGeometry* forward;
  int filters;
};
GemmB flippedWeightsAsB(const FlippedWeights& w);

}  // namespace core::nn
