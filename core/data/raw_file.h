#pragma once
// Reading a data file whole, plain or gzip-compressed (detected from the content's magic
// bytes, not the file name). Every failure throws core::util::Error naming the path.
#include <cstdint>
#include <string>
#include <vector>

namespace core::data {

// A data file read as a stream, plain or gzip (zlib's gz reader: detected from the content,
// concatenated members read in turn). Nothing is read until asked, so a reader can check a
// header before it commits memory to the data.
class DataFile {
public:
  explicit DataFile(const std::string& path);  // throws naming the path when it cannot be opened
  ~DataFile();
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;

  const std::string& path() const { return m_path; }
  std::int64_t bytesOnDisk() const { return m_bytesOnDisk; }
  bool gzipped() const { return m_gzipped; }
  // Reads up to `n` bytes (fewer only at the end); throws on corrupt or truncated gzip data.
  std::size_t read(std::uint8_t* out, std::size_t n);
  // The most bytes this file can yield: its size when plain, the deflate limit (1032:1) when
  // gzipped. A header that promises more is lying, before a byte of data is read.
  std::int64_t mostBytesItCanHold() const;

private:
  std::string m_path;
  void* m_file = nullptr;  // gzFile
  std::int64_t m_bytesOnDisk = 0;
  bool m_gzipped = false;
};

// The largest data file AccelLab reads whole: 4 GiB (the largest shipped dataset file,
// MNIST's training images, is 47 MB).
inline constexpr std::int64_t kMaxDataFileBytes = std::int64_t{1} << 32;

// The file's bytes, inflated when gzipped. More than `maxBytes` (on disk when plain, inflated
// when gzipped) is an Error before the excess is read or allocated, so a decompression bomb
// or a huge sparse file costs no memory. A corrupt or truncated gzip stream is an Error.
std::vector<std::uint8_t> readDataFile(const std::string& path, std::int64_t maxBytes = kMaxDataFileBytes);

// Inflates an in-memory gzip stream; `what` names it in errors.
std::vector<std::uint8_t> gunzip(const std::vector<std::uint8_t>& compressed, const std::string& what);

bool looksGzipped(const std::vector<std::uint8_t>& bytes);

}  // namespace core::data
