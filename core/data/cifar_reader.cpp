#include "core/data/cifar_reader.h"

#include "core/data/raw_file.h"
#include "core/util/error.h"

namespace core::data {

using util::Error;

CifarBatch parseCifarBatch(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  if (bytes.empty()) throw Error(what + ": empty CIFAR-10 batch file");
  if (bytes.size() % kCifarRecordBytes != 0)
    throw Error(what + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of CIFAR-10 records (" +
                std::to_string(kCifarRecordBytes) + " bytes each: 1 label + 3072 pixels); the file is truncated or not a " +
                "CIFAR-10 binary batch");
  const std::size_t records = bytes.size() / kCifarRecordBytes;
  CifarBatch b;
  b.labels.resize(records);
  b.pixels.resize(records * kCifarPixels);
  for (std::size_t r = 0; r < records; ++r) {
    const std::uint8_t* rec = bytes.data() + r * kCifarRecordBytes;
    if (rec[0] >= kCifarClasses)
      throw Error(what + ": record " + std::to_string(r) + " has label " + std::to_string(rec[0]) +
                  " (CIFAR-10 labels are 0-9; is this a CIFAR-100 file?)");
    b.labels[r] = rec[0];
    std::copy(rec + 1, rec + kCifarRecordBytes, b.pixels.begin() + static_cast<std::ptrdiff_t>(r * kCifarPixels));
  }
  return b;
}

CifarBatch readCifarBatch(const std::string& path) {
  // A batch of the binary distribution holds 10,000 records; five times that is the whole
  // training set in one file, and the most a batch file may hold here.
  constexpr std::int64_t kMaxRecords = 50'000;
  return parseCifarBatch(readDataFile(path, kMaxRecords * kCifarRecordBytes), path);
}

}  // namespace core::data
