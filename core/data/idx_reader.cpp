#include "core/data/idx_reader.h"

#include <cstdio>

#include "core/data/raw_file.h"
#include "core/util/error.h"

namespace core::data {

using util::Error;

namespace {

std::uint32_t bigEndian32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

const char* idxTypeName(std::uint8_t code) {
  switch (code) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "int16";
    case 0x0C: return "int32";
    case 0x0D: return "float32";
    case 0x0E: return "float64";
    default: return nullptr;
  }
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

}  // namespace

std::int64_t IdxArray::itemSize() const {
  std::int64_t n = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) n *= dims[i];
  return n;
}

namespace {

// The most values an IDX array may hold: 4 GiB of unsigned bytes (MNIST's training images
// are 47 MB). Dimensions are multiplied with a check against this before each product.
constexpr std::int64_t kMaxIdxValues = std::int64_t{1} << 32;

// Checks the header in `bytes` (at least the first `size` bytes of the file); fills `dims`
// and `total` (values promised) and returns the header's length.
std::size_t checkHeader(const std::uint8_t* bytes, std::size_t size, const std::string& what,
                        std::vector<std::int64_t>& dims, std::int64_t& total) {
  if (size < 4)
    throw Error(what + ": not an IDX file (" + std::to_string(size) + " bytes, shorter than the 4-byte magic)");
  const std::uint32_t magic = bigEndian32(bytes);
  const std::uint8_t type = bytes[2];
  const int ndims = bytes[3];
  if (bytes[0] != 0 || bytes[1] != 0 || !idxTypeName(type) || ndims < 1 || ndims > 4)
    throw Error(what + ": not an IDX file: magic number " + hex(magic) +
                " (expected 0x0000080N: two zero bytes, type code, 1-4 dimensions, e.g. 0x00000803 for images)");
  if (type != 0x08)
    throw Error(what + ": IDX data type " + idxTypeName(type) +
                " is not supported (AccelLab reads unsigned-byte IDX, as MNIST-style datasets use)");
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(ndims);
  if (size < header)
    throw Error(what + ": truncated IDX header (" + std::to_string(size) + " bytes, the header of a " +
                std::to_string(ndims) + "-dimensional array needs " + std::to_string(header) + ")");
  dims.clear();
  total = 1;
  for (int d = 0; d < ndims; ++d) {
    const std::int64_t n = bigEndian32(bytes + 4 + 4 * d);
    if (n > (std::int64_t{1} << 30))
      throw Error(what + ": implausible IDX dimension " + std::to_string(d) + " size " + std::to_string(n));
    dims.push_back(n);
    if (n != 0 && total > kMaxIdxValues / n)  // checked before multiplying: no wrap-around
      throw Error(what + ": IDX array too large: its dimensions promise more than " + std::to_string(kMaxIdxValues) +
                  " values (4 GiB), the most AccelLab reads");
    total *= n;
  }
  return header;
}

void checkDataSize(std::int64_t have, std::int64_t total, const std::string& what) {
  if (have < total)
    throw Error(what + ": truncated IDX data: the header promises " + std::to_string(total) + " bytes but only " +
                std::to_string(have) + " follow");
  if (have > total)
    throw Error(what + ": " + std::to_string(have - total) + " unexpected bytes after the IDX data (" +
                std::to_string(total) + " expected)");
}

// Checks the header and the data size; returns the dims and the header's length.
std::size_t checkIdx(const std::vector<std::uint8_t>& bytes, const std::string& what, std::vector<std::int64_t>& dims) {
  std::int64_t total = 0;
  const std::size_t header = checkHeader(bytes.data(), bytes.size(), what, dims, total);
  checkDataSize(static_cast<std::int64_t>(bytes.size() - header), total, what);
  return header;
}

}  // namespace

IdxArray parseIdx(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  IdxArray a;
  const std::size_t header = checkIdx(bytes, what, a.dims);
  a.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return a;
}

IdxArray parseIdx(std::vector<std::uint8_t>&& bytes, const std::string& what) {
  // Reuses the buffer: no second copy of a 47 MB image file.
  IdxArray a;
  const std::size_t header = checkIdx(bytes, what, a.dims);
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(header));
  a.values = std::move(bytes);
  return a;
}

IdxArray readIdxFile(const std::string& path) {
  // The header first: the data's size is known before any memory is committed to it.
  DataFile file(path);
  std::uint8_t head[4 + 4 * 4] = {};
  std::size_t got = file.read(head, 4);
  const std::size_t want = got == 4 && head[3] >= 1 && head[3] <= 4 ? 4 + 4 * std::size_t{head[3]} : got;
  got += file.read(head + got, want - got);
  IdxArray a;
  std::int64_t total = 0;
  const std::size_t header = checkHeader(head, got, path, a.dims, total);
  if (!file.gzipped()) {
    checkDataSize(file.bytesOnDisk() - static_cast<std::int64_t>(header), total, path);
  } else if (total > file.mostBytesItCanHold()) {
    throw Error(path + ": the IDX header promises " + std::to_string(total) + " bytes, more than " +
                std::to_string(file.bytesOnDisk()) + " bytes of gzip data can hold; the file is truncated or corrupt");
  }
  a.values.resize(static_cast<std::size_t>(total));
  const std::int64_t have = static_cast<std::int64_t>(file.read(a.values.data(), a.values.size()));
  if (have < total) checkDataSize(have, total, path);
  // Anything after the data is an error; count up to 1 MiB of it, never all of a bomb.
  constexpr std::size_t kCountAtMost = 1 << 20;
  std::uint8_t tail[4096];
  std::size_t extra = 0;
  for (std::size_t got = 1; got > 0 && extra < kCountAtMost;) {
    got = file.read(tail, sizeof tail);
    extra += got;
  }
  if (extra > 0)
    throw Error(path + ": " + std::to_string(extra) + (extra >= kCountAtMost ? "+" : "") +
                " unexpected bytes after the IDX data (" + std::to_string(total) + " expected)");
  return a;
}

}  // namespace core::data
