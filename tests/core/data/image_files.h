#pragma once
// Helpers for the image-folder tests: small PNG (libpng's simplified writer) and JPEG
// (libjpeg) files, and generated classes of images.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>
// clang-format off
#include <png.h>
#include <jpeglib.h>
// clang-format on

#include "test_files.h"

namespace testdata {

// A PNG of `format` (PNG_FORMAT_GRAY, _RGB, _RGBA, _LINEAR_Y (16-bit), _RGB_COLORMAP with `colormap`).
inline Bytes png(int width, int height, png_uint_32 format, const void* pixels, const void* colormap = nullptr,
                 int colormapEntries = 0) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = format;
  image.colormap_entries = static_cast<png_uint_32>(colormapEntries);
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, pixels, 0, colormap)) return {};
  Bytes out(size);
  if (!png_image_write_to_memory(&image, out.data(), &size, 0, pixels, 0, colormap)) return {};
  out.resize(size);
  return out;
}

inline Bytes pngGray(int width, int height, const Bytes& pixels) { return png(width, height, PNG_FORMAT_GRAY, pixels.data()); }
inline Bytes pngRgb(int width, int height, const Bytes& pixels) { return png(width, height, PNG_FORMAT_RGB, pixels.data()); }

// A baseline JPEG of 1 (grey) or 3 (RGB) channels.
inline Bytes jpeg(int width, int height, int channels, const Bytes& pixels, int quality = 95) {
  jpeg_compress_struct info;
  jpeg_error_mgr errors;
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(width);
  info.image_height = static_cast<JDIMENSION>(height);
  info.input_components = channels;
  info.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<unsigned char*>(pixels.data()) +
                   static_cast<std::size_t>(info.next_scanline) * static_cast<std::size_t>(width * channels);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  Bytes out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

// One of three classes as a grey image of size x size: 0 horizontal stripes, 1 vertical
// stripes, 2 a filled circle; random period, phase, position and noise.
inline Bytes patternImage(int cls, int size, std::mt19937& rng) {
  std::uniform_int_distribution<int> period(4, 8), phase(0, 7), noise(-40, 40);
  std::uniform_real_distribution<double> centre(0.35, 0.65), radius(0.2, 0.35);
  const int p = period(rng), ph = phase(rng);
  const double cx = centre(rng) * size, cy = centre(rng) * size, r = radius(rng) * size;
  Bytes pixels(static_cast<std::size_t>(size * size));
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      bool on = false;
      if (cls == 0) on = ((y + ph) / (p / 2)) % 2 == 0;
      else if (cls == 1) on = ((x + ph) / (p / 2)) % 2 == 0;
      else on = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
      const int v = (on ? 200 : 40) + noise(rng);
      pixels[static_cast<std::size_t>(y * size + x)] = static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  return pixels;
}

inline Bytes greyToRgb(const Bytes& grey, std::uint8_t tintR = 255, std::uint8_t tintB = 255) {
  Bytes rgb;
  for (std::uint8_t v : grey) {
    rgb.push_back(static_cast<std::uint8_t>(v * tintR / 255));
    rgb.push_back(v);
    rgb.push_back(static_cast<std::uint8_t>(v * tintB / 255));
  }
  return rgb;
}

// DIR/{hstripes,vstripes,circle}/ with `perClass` images each, 32x32: PNG grey, PNG RGB and
// JPEG in turn (the model's grey 28x28 input means conversion and resizing for every one).
inline void writePatternFolder(const std::filesystem::path& dir, int perClass, unsigned seed = 1) {
  const char* names[3] = {"hstripes", "vstripes", "circle"};
  std::mt19937 rng(seed);
  for (int c = 0; c < 3; ++c) {
    std::filesystem::create_directories(dir / names[c]);
    for (int i = 0; i < perClass; ++i) {
      const Bytes grey = patternImage(c, 32, rng);
      char name[32];
      if (i % 3 == 0) {
        std::snprintf(name, sizeof name, "img%03d.png", i);
        writeBytes(dir / names[c] / name, pngGray(32, 32, grey));
      } else if (i % 3 == 1) {
        std::snprintf(name, sizeof name, "img%03d.PNG", i);
        writeBytes(dir / names[c] / name, pngRgb(32, 32, greyToRgb(grey, 220, 255)));
      } else {
        std::snprintf(name, sizeof name, "img%03d.jpg", i);
        writeBytes(dir / names[c] / name, jpeg(32, 32, 3, greyToRgb(grey)));
      }
    }
  }
}

}  // namespace testdata
