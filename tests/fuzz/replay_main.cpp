// Replays a fuzz target's corpus without libFuzzer (any compiler): every file under the
// folders or files given is fed to LLVMFuzzerTestOneInput once. CTest runs this on the seed
// corpus and on every input that once crashed (tests/data/fuzz/<target>/).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_target.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<fs::path> inputs;
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else {
      inputs.emplace_back(argv[i]);
    }
    for (const auto& p : inputs) {
      std::ifstream in(p, std::ios::binary);
      const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
      ++files;
    }
  }
  std::printf("replayed %d input(s)\n", files);
  return files > 0 ? 0 : 1;
}
