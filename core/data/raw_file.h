#pragma once
// Reading a data file whole, plain or gzip-compressed (detected from the content's magic
// bytes, not the file name). Every failure throws core::util::Error naming the path.
#include <cstdint>
#include <string>
#include <vector>

namespace core::data {

// The file's bytes, inflated when it starts with the gzip magic (0x1f 0x8b). Concatenated
// gzip members are read in turn. A corrupt or truncated gzip stream is an Error.
std::vector<std::uint8_t> readDataFile(const std::string& path);

// Inflates an in-memory gzip stream; `what` names it in errors.
std::vector<std::uint8_t> gunzip(const std::vector<std::uint8_t>& compressed, const std::string& what);

bool looksGzipped(const std::vector<std::uint8_t>& bytes);

}  // namespace core::data
