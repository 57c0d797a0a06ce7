// The PNG and JPEG decoders (libpng's simplified API, libjpeg-turbo with its error_exit jump),
// from memory, to grey and to RGB, then the resize to a model's input. Small limits keep each
// input fast; a header over them must be refused, never allocated.
#include <vector>

#include "core/data/image_decode.h"
#include "core/data/image_resize.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  core::data::ImageLimits limits;
  limits.maxSide = 2048;
  limits.maxPixels = 1 << 20;
  const std::span<const std::uint8_t> bytes(data, size);
  for (int channels : {1, 3}) {
    try {
      const core::data::DecodedImage image = core::data::decodeImage(bytes, channels, "fuzz.img", limits);
      if (image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * channels) __builtin_trap();
      std::vector<float> out(static_cast<std::size_t>(channels) * 28 * 28);
      core::data::resizeToPlanar(image, {channels, 28, 28}, out.data());
      for (float v : out)
        if (!(v >= 0.0f && v <= 1.0f)) __builtin_trap();
    } catch (const core::util::Error&) {
    }
  }
  return 0;
}
