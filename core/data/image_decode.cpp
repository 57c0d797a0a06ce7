#include "core/data/image_decode.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>
// clang-format off
#include <png.h>
#include <jpeglib.h>  // after <cstdio>: it needs FILE and size_t declared
#include <jerror.h>
// clang-format on

#include "core/util/error.h"

namespace core::data {

using util::Error;

namespace {

std::string sizeText(std::int64_t width, std::int64_t height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

// Refuses an image the header says is empty or larger than the limits, before any pixel is
// allocated.
void checkSize(std::int64_t width, std::int64_t height, const std::string& what, const char* codec,
               const ImageLimits& limits) {
  if (width < 1 || height < 1) throw Error(what + ": " + codec + " image of size " + sizeText(width, height));
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels)
    throw Error(what + ": " + codec + " image of " + sizeText(width, height) + " pixels is larger than AccelLab reads (" +
                std::to_string(limits.maxSide) + " pixels a side and " + std::to_string(limits.maxPixels >> 20) +
                " M pixels at most); scale it down first");
}

// --- PNG: libpng's simplified API -------------------------------------------------------------
// It converts every PNG colour type and bit depth itself and keeps libpng's setjmp/longjmp
// inside libpng (png_safe_execute): no jump ever crosses a C++ frame, errors come back as a
// return value and a message.

// Frees what png_image_begin_read_* allocated on every way out (a no-op once finished).
struct PngImageGuard {
  png_image* image;
  ~PngImageGuard() { png_image_free(image); }
};

DecodedImage decodePng(std::span<const std::uint8_t> bytes, int channels, const std::string& what,
                       const ImageLimits& limits) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  const PngImageGuard guard{&image};
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
    throw Error(what + ": not a readable PNG (" + image.message + ")");
  checkSize(image.width, image.height, what, "PNG", limits);
  image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  // 16-bit samples are sRGB-encoded like 8-bit ones in practice (libpng would take them as linear).
  image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
  DecodedImage out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.channels = channels;
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  const png_color black{0, 0, 0};  // transparent pixels are composited on black
  if (!png_image_finish_read(&image, &black, out.pixels.data(), 0, nullptr))
    throw Error(what + ": corrupt or truncated PNG (" + image.message + ")");
  return out;
}

// --- JPEG: libjpeg(-turbo) ----------------------------------------------------------------------
// libjpeg reports errors through error_exit, which must not return: the documented pattern is a
// longjmp back to a setjmp. Only the two functions marked C-STYLE below call setjmp, and they
// (and the callbacks that jump) hold nothing but plain pointers and integers, so a jump never
// skips a destructor; the decompressor itself is destroyed by the C++ caller, outside them.

constexpr int kMaxJpegScans = 500;  // a progressive JPEG with thousands of scans is a CPU bomb (as TurboJPEG limits)

struct JpegSession {
  jpeg_decompress_struct info;
  jpeg_error_mgr errors;
  jpeg_progress_mgr progress;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool created;
};

JpegSession& sessionOf(j_common_ptr info) { return *static_cast<JpegSession*>(info->client_data); }

// C-STYLE: libjpeg's error_exit; records the message and jumps back (never returns).
void onJpegError(j_common_ptr info) {
  JpegSession& s = sessionOf(info);
  (*info->err->format_message)(info, s.message);
  std::longjmp(s.jump, 1);
}

// C-STYLE: warnings are tolerated (a few extraneous bytes, as many cameras write), except a
// premature end of the data: libjpeg would pad a truncated file with grey and say nothing.
void onJpegMessage(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) onJpegError(info);
}

// C-STYLE: stops a progressive JPEG with implausibly many scans.
void onJpegProgress(j_common_ptr info) {
  if (!info->is_decompressor) return;
  const auto* d = reinterpret_cast<j_decompress_ptr>(info);
  if (d->input_scan_number > kMaxJpegScans) {
    JpegSession& s = sessionOf(info);
    std::snprintf(s.message, sizeof s.message, "more than %d progressive scans", kMaxJpegScans);
    std::longjmp(s.jump, 1);
  }
}

// C-STYLE: creates the decompressor and reads the header; false with s.message on an error.
bool jpegReadHeader(JpegSession& s, const std::uint8_t* data, std::size_t size, int channels) {
  s.info.err = jpeg_std_error(&s.errors);
  s.errors.error_exit = onJpegError;
  s.errors.emit_message = onJpegMessage;
  if (setjmp(s.jump)) return false;
  jpeg_create_decompress(&s.info);
  s.created = true;
  s.info.client_data = &s;
  s.progress.progress_monitor = onJpegProgress;
  s.info.progress = &s.progress;
  jpeg_mem_src(&s.info, data, static_cast<unsigned long>(size));
  jpeg_read_header(&s.info, TRUE);
  if (s.info.jpeg_color_space == JCS_CMYK || s.info.jpeg_color_space == JCS_YCCK) {
    std::snprintf(s.message, sizeof s.message, "a CMYK JPEG; save it as RGB or greyscale");
    return false;
  }
  s.info.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  return true;
}

// C-STYLE: decodes the pixels into `out` (`height` rows of `rowBytes`, as allocated from the
// header); false with s.message on an error.
bool jpegReadPixels(JpegSession& s, std::uint8_t* out, std::size_t rowBytes, std::size_t height) {
  if (setjmp(s.jump)) return false;
  jpeg_start_decompress(&s.info);
  if (static_cast<std::size_t>(s.info.output_width) * static_cast<std::size_t>(s.info.output_components) != rowBytes ||
      s.info.output_height != height) {
    std::snprintf(s.message, sizeof s.message, "it decodes to another size than its header says");
    return false;
  }
  while (s.info.output_scanline < s.info.output_height) {
    JSAMPROW row = out + static_cast<std::size_t>(s.info.output_scanline) * rowBytes;
    if (jpeg_read_scanlines(&s.info, &row, 1) != 1) {
      std::snprintf(s.message, sizeof s.message, "the data ends early");
      return false;
    }
  }
  jpeg_finish_decompress(&s.info);
  return true;
}

struct JpegGuard {
  JpegSession& s;
  ~JpegGuard() {
    if (s.created) jpeg_destroy_decompress(&s.info);
  }
};

DecodedImage decodeJpeg(std::span<const std::uint8_t> bytes, int channels, const std::string& what,
                        const ImageLimits& limits) {
  JpegSession s;
  std::memset(&s, 0, sizeof s);
  const JpegGuard guard{s};
  if (!jpegReadHeader(s, bytes.data(), bytes.size(), channels))
    throw Error(what + ": not a readable JPEG (" + s.message + ")");
  checkSize(s.info.image_width, s.info.image_height, what, "JPEG", limits);
  DecodedImage out;
  out.width = static_cast<int>(s.info.image_width);
  out.height = static_cast<int>(s.info.image_height);
  out.channels = channels;
  const std::size_t rowBytes = static_cast<std::size_t>(out.width) * static_cast<std::size_t>(channels);
  out.pixels.resize(rowBytes * static_cast<std::size_t>(out.height));
  if (!jpegReadPixels(s, out.pixels.data(), rowBytes, static_cast<std::size_t>(out.height)))
    throw Error(what + ": corrupt or truncated JPEG (" + s.message + ")");
  return out;
}

std::string firstBytes(std::span<const std::uint8_t> bytes) {
  std::string hex;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", bytes[i]);
    hex += (i ? " " : "") + std::string(b);
  }
  return hex;
}

}  // namespace

ImageCodec imageCodecOf(std::span<const std::uint8_t> bytes) {
  static const std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0) return ImageCodec::Png;
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return ImageCodec::Jpeg;
  return ImageCodec::Unknown;
}

DecodedImage decodeImage(std::span<const std::uint8_t> bytes, int channels, const std::string& what,
                         const ImageLimits& limits) {
  if (channels != 1 && channels != 3)
    throw Error(what + ": images are decoded to 1 (grey) or 3 (RGB) channels, not " + std::to_string(channels));
  switch (imageCodecOf(bytes)) {
    case ImageCodec::Png: return decodePng(bytes, channels, what, limits);
    case ImageCodec::Jpeg: return decodeJpeg(bytes, channels, what, limits);
    case ImageCodec::Unknown: break;
  }
  if (bytes.empty()) throw Error(what + ": empty file, not an image");
  throw Error(what + ": not a PNG or JPEG image (it starts with bytes " + firstBytes(bytes) + ")");
}

}  // namespace core::data
