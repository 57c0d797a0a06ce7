#pragma once
// Decoding one PNG or JPEG image from memory (libpng's simplified API, libjpeg-turbo), to
// 8-bit grey or RGB whatever the file holds: palette, alpha (composited on black), 16-bit and
// greyscale PNGs, greyscale and colour JPEGs. The codec is told by the content's magic bytes,
// not the file name. Every failure throws core::util::Error naming `what` (the file) and the
// reason: not an image, corrupt or truncated data, an image larger than the limits (checked
// from the header, before the pixels are allocated).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace core::data {

// The largest image AccelLab decodes: 16384 pixels a side and 64 M pixels in all (192 MiB
// as RGB), checked before the pixels are allocated.
inline constexpr int kMaxImageSide = 16384;
inline constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 26;

struct ImageLimits {
  int maxSide = kMaxImageSide;
  std::int64_t maxPixels = kMaxImagePixels;
};

enum class ImageCodec { Png, Jpeg, Unknown };

// The codec the bytes start with (PNG signature, JPEG SOI marker), or Unknown.
ImageCodec imageCodecOf(std::span<const std::uint8_t> bytes);

// An 8-bit image, rows top to bottom, channels interleaved (grey: 1, RGB: 3).
struct DecodedImage {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;  // width * height * channels bytes
};

// Decodes `bytes` to `channels` (1 = grey, 3 = RGB; anything else is an Error).
DecodedImage decodeImage(std::span<const std::uint8_t> bytes, int channels, const std::string& what,
                         const ImageLimits& limits = {});

}  // namespace core::data
