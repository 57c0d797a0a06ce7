// The CIFAR-10 binary batch reader, from memory.
#include "core/data/cifar_reader.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    core::data::parseCifarBatch(fuzz::bytes(data, size), "fuzz.bin");
  } catch (const core::util::Error&) {
  }
  return 0;
}
