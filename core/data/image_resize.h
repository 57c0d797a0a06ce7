#pragma once
// Fitting a decoded image to a model's input: resized to the model's height and width and
// stored channel-major (C, H, W) as floats in [0, 1], as every other dataset feeds models.
#include "core/data/image_decode.h"
#include "core/nn/layer_stats.h"

namespace core::data {

// Writes `image` resized to `shape` into `out` (shape.size() floats). Each axis on its own:
// area averaging where it shrinks (every source pixel counts, no aliasing), bilinear with
// centred pixels where it grows. The image's channels must be shape.c (decodeImage converts);
// throws core::util::Error otherwise.
void resizeToPlanar(const DecodedImage& image, nn::Shape shape, float* out);

}  // namespace core::data
