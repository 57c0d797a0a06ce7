#pragma once
// The IDX format of MNIST and Fashion-MNIST: a big-endian header (two zero bytes, a type
// code, the number of dimensions, then one 32-bit size per dimension) followed by the data.
// Only unsigned-byte data (type 0x08), as MNIST-style datasets use, is read.
#include <cstdint>
#include <string>
#include <vector>

namespace core::data {

struct IdxArray {
  std::vector<std::int64_t> dims;   // e.g. {60000, 28, 28} or {60000}
  std::vector<std::uint8_t> values; // product(dims) bytes, row-major
  std::int64_t count() const { return dims.empty() ? 0 : dims[0]; }
  std::int64_t itemSize() const;    // product of dims[1..]
};

// Parses IDX bytes; `what` names the source in errors (wrong magic, unsupported type,
// too many dimensions, truncated data, trailing bytes).
IdxArray parseIdx(const std::vector<std::uint8_t>& bytes, const std::string& what);
IdxArray parseIdx(std::vector<std::uint8_t>&& bytes, const std::string& what);  // reuses the buffer

// Reads an IDX file, plain or gzip-compressed.
IdxArray readIdxFile(const std::string& path);

}  // namespace core::data
