#pragma once
// Helpers for the data tests: a scratch folder and writers for small IDX / CIFAR / gzip files.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <unistd.h>
#include <zlib.h>

namespace testdata {

using Bytes = std::vector<std::uint8_t>;

inline std::filesystem::path scratchDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("accellab-data-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void writeBytes(const std::filesystem::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline Bytes gzip(const Bytes& in) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  Bytes out(deflateBound(&zs, static_cast<uLong>(in.size())) + 64);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline void put32(Bytes& b, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}

// An unsigned-byte IDX file with the given dims and values.
inline Bytes idx(const std::vector<std::uint32_t>& dims, const Bytes& values) {
  Bytes b{0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (auto d : dims) put32(b, d);
  b.insert(b.end(), values.begin(), values.end());
  return b;
}

// n images of rows x cols whose pixel (i, r, c) is (i*31 + r*7 + c) % 256.
inline std::uint8_t pixel(std::uint32_t i, std::uint32_t r, std::uint32_t c) {
  return static_cast<std::uint8_t>((i * 31 + r * 7 + c) % 256);
}
inline Bytes idxImages(std::uint32_t n, std::uint32_t rows, std::uint32_t cols) {
  Bytes v;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::uint32_t c = 0; c < cols; ++c) v.push_back(pixel(i, r, c));
  return idx({n, rows, cols}, v);
}
inline Bytes idxLabels(std::uint32_t n, int classes = 10) {
  Bytes v;
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(static_cast<std::uint8_t>((i * 3) % static_cast<std::uint32_t>(classes)));
  return idx({n}, v);
}

// Writes the four MNIST-style files (gzip when `gz`) with small 5x6 images.
inline void writeMnistLike(const std::filesystem::path& dir, std::uint32_t train, std::uint32_t test, bool gz) {
  auto w = [&](const std::string& name, const Bytes& b) {
    if (gz) writeBytes(dir / (name + ".gz"), gzip(b));
    else writeBytes(dir / name, b);
  };
  w("train-images-idx3-ubyte", idxImages(train, 5, 6));
  w("train-labels-idx1-ubyte", idxLabels(train));
  w("t10k-images-idx3-ubyte", idxImages(test, 5, 6));
  w("t10k-labels-idx1-ubyte", idxLabels(test));
}

// A CIFAR-10 batch of n records: label (first + i) % 10, pixel p of record i = (i + p) % 251.
inline Bytes cifarBatch(int n, int first = 0) {
  Bytes b;
  for (int i = 0; i < n; ++i) {
    b.push_back(static_cast<std::uint8_t>((first + i) % 10));
    for (int p = 0; p < 3072; ++p) b.push_back(static_cast<std::uint8_t>((first + i + p) % 251));
  }
  return b;
}

}  // namespace testdata
