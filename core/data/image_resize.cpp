#include "core/data/image_resize.h"

#include <algorithm>
#include <cmath>

#include "core/util/error.h"

namespace core::data {

namespace {

// Which source pixels (and how much of each) make one output pixel along one axis.
struct AxisTaps {
  std::vector<std::size_t> first;   // per output pixel: its first tap; taps [first[o], first[o + 1])
  std::vector<std::size_t> source;  // source pixel index of each tap
  std::vector<float> weight;        // the taps of one output pixel sum to 1
};

AxisTaps axisTaps(int in, int out) {
  AxisTaps t;
  t.first.reserve(static_cast<std::size_t>(out) + 1);
  const double scale = static_cast<double>(in) / out;
  for (int o = 0; o < out; ++o) {
    t.first.push_back(t.source.size());
    if (scale > 1.0) {  // shrink: the average over the output pixel's footprint [b, e)
      const double b = o * scale, e = b + scale;
      const int last = std::min(in, static_cast<int>(std::ceil(e)));
      for (int i = static_cast<int>(std::floor(b)); i < last; ++i) {
        const double w = std::min(e, i + 1.0) - std::max(b, static_cast<double>(i));
        if (w <= 0) continue;
        t.source.push_back(static_cast<std::size_t>(i));
        t.weight.push_back(static_cast<float>(w / scale));
      }
    } else {  // grow (or keep): bilinear between the two nearest pixel centres
      const double c = std::clamp((o + 0.5) * scale - 0.5, 0.0, static_cast<double>(in - 1));
      const int i0 = static_cast<int>(std::floor(c));
      const int i1 = std::min(i0 + 1, in - 1);
      const auto f = static_cast<float>(c - i0);
      t.source.push_back(static_cast<std::size_t>(i0));
      t.weight.push_back(1.0f - f);
      if (i1 != i0 && f > 0) {
        t.source.push_back(static_cast<std::size_t>(i1));
        t.weight.push_back(f);
      }
    }
  }
  t.first.push_back(t.source.size());
  return t;
}

}  // namespace

void resizeToPlanar(const DecodedImage& image, nn::Shape shape, float* out) {
  if (image.channels != shape.c)
    throw util::Error("resize: the image has " + std::to_string(image.channels) + " channels but the model takes " +
                      std::to_string(shape.c));
  if (image.width < 1 || image.height < 1 || shape.w < 1 || shape.h < 1)
    throw util::Error("resize: empty image or target size");
  const auto c = static_cast<std::size_t>(image.channels);
  const auto inW = static_cast<std::size_t>(image.width), inH = static_cast<std::size_t>(image.height);
  const auto outW = static_cast<std::size_t>(shape.w), outH = static_cast<std::size_t>(shape.h);
  const AxisTaps across = axisTaps(image.width, shape.w);
  const AxisTaps down = axisTaps(image.height, shape.h);
  // Across first: every source row to the output width (channels stay interleaved).
  std::vector<float> rows(inH * outW * c);
  for (std::size_t y = 0; y < inH; ++y) {
    const std::uint8_t* src = image.pixels.data() + y * inW * c;
    float* dst = rows.data() + y * outW * c;
    for (std::size_t x = 0; x < outW; ++x)
      for (std::size_t ch = 0; ch < c; ++ch) {
        float sum = 0;
        for (std::size_t k = across.first[x]; k < across.first[x + 1]; ++k)
          sum += across.weight[k] * src[across.source[k] * c + ch];
        dst[x * c + ch] = sum;
      }
  }
  // Then down, into channel-major planes, scaled to [0, 1].
  for (std::size_t y = 0; y < outH; ++y)
    for (std::size_t x = 0; x < outW; ++x)
      for (std::size_t ch = 0; ch < c; ++ch) {
        float sum = 0;
        for (std::size_t k = down.first[y]; k < down.first[y + 1]; ++k)
          sum += down.weight[k] * rows[(down.source[k] * outW + x) * c + ch];
        out[(ch * outH + y) * outW + x] = std::clamp(sum * (1.0f / 255.0f), 0.0f, 1.0f);
      }
}

}  // namespace core::data
