// The IDX reader (MNIST-style files), from memory.
#include "core/data/idx_reader.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::data::IdxArray a = core::data::parseIdx(fuzz::bytes(data, size), "fuzz.idx");
    if (static_cast<std::int64_t>(a.values.size()) != a.itemSize() * (a.dims.empty() ? 0 : a.dims[0])) __builtin_trap();
  } catch (const core::util::Error&) {
  }
  return 0;
}
