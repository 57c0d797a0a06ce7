// The text corpus of the language models (--data-dir FILE): any bytes are a corpus when there
// are enough of them for one window in each split, and the splits hold every byte, in order.
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <fstream>

#include "core/data/text_corpus.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int window = 1 + data[0] % 64;  // the first byte picks the model's window
  static const std::string path = "/tmp/accellab-fuzz-text-" + std::to_string(::getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    const core::data::TextCorpus c = core::data::loadTextCorpus(path, window);
    if (c.train.size() + c.validation.size() != size - 1) __builtin_trap();  // bytes lost or invented
    if (static_cast<int>(c.train.size()) < window || static_cast<int>(c.validation.size()) < window) __builtin_trap();
    if (!std::equal(c.train.begin(), c.train.end(), data + 1)) __builtin_trap();
  } catch (const core::util::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
