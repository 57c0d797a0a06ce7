#pragma once
// The CIFAR-10 "binary version": each record is one label byte (0-9) followed by 3,072
// pixel bytes (1,024 red, 1,024 green, 1,024 blue, each row-major 32x32) — already the
// channel-major layout the engine uses.
#include <cstdint>
#include <string>
#include <vector>

namespace core::data {

inline constexpr int kCifarPixels = 3 * 32 * 32;
inline constexpr int kCifarRecordBytes = 1 + kCifarPixels;
inline constexpr int kCifarClasses = 10;

struct CifarBatch {
  std::vector<std::uint8_t> pixels;  // records x 3072, record after record
  std::vector<std::uint8_t> labels;  // records
  std::int64_t count() const { return static_cast<std::int64_t>(labels.size()); }
};

// Parses one batch file's bytes; `what` names it in errors (empty, size not a whole number
// of records, label out of range).
CifarBatch parseCifarBatch(const std::vector<std::uint8_t>& bytes, const std::string& what);

// Reads one batch file (plain or gzip-compressed).
CifarBatch readCifarBatch(const std::string& path);

}  // namespace core::data
