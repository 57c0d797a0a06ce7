#pragma once
// A fuzz target: libFuzzer's entry point. Every target catches core::util::Error (a clear
// error is the right answer to a bad input); anything else (a crash, a sanitizer report, an
// exception of another type, a hang) is a finding. See tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fuzz {
inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}
inline std::vector<std::uint8_t> bytes(const std::uint8_t* data, std::size_t size) {
  return std::vector<std::uint8_t>(data, data + size);
}
}  // namespace fuzz
