// The run history as the app finds it at start: a folder of whatever files were left there
// (run files, journals, the legacy runs.json, a damaged history database, links to devices
// and loops). The input is cut at 0x00 bytes into up to six entries; each entry's first byte
// picks what it becomes. load() must never throw, crash or hang, and every run it returns
// must be saved and read back whole (nothing the app shows is lost at its next save).
#include <filesystem>
#include <fstream>
#include <unistd.h>

#define ACCELLAB_FUZZ_APP_RUNS
#include "app/gui/run_history.h"
#include "core/util/error.h"
#include "fuzz_run_round_trip.h"
#include "fuzz_target.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path root = fs::temp_directory_path() / ("accellab-fuzz-history-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(root, ec);
  const fs::path folder = root / "runs";
  fs::create_directories(folder);
  const std::string all = fuzz::text(data, size);
  std::size_t begin = 0;
  for (int i = 0; i < 6 && begin < all.size(); ++i) {
    std::size_t end = all.find('\0', begin);
    if (end == std::string::npos) end = all.size();
    const std::string entry = all.substr(begin, end - begin);
    begin = end + 1;
    if (entry.empty()) continue;
    const std::string body = entry.substr(1);
    const std::string key = "run-20261126-120000-00" + std::to_string(i) + "-abcdef";
    const auto write = [&](const fs::path& p) { std::ofstream(p, std::ios::binary) << body; };
    switch (static_cast<unsigned char>(entry[0]) % 6) {
      case 0: write(folder / (key + ".json")); break;
      case 1: write(folder / (key + ".jsonl")); break;
      case 2: write(root / "runs.json"); break;
      case 3: write(folder / "history.sqlite"); break;
      case 4: fs::create_symlink("/dev/zero", folder / (key + ".json"), ec); break;
      default: fs::create_symlink(folder / (key + ".jsonl"), folder / (key + ".jsonl"), ec); break;  // a loop
    }
  }
  std::vector<widgets::Run> runs;
  {
    app::gui::RunHistory history(folder.string().c_str());
    runs = history.load().runs;  // never throws: bad entries become problems
  }
  for (const widgets::Run& run : runs) fuzz::requireRunRoundTrips(run);
  fs::remove_all(root, ec);
  return 0;
}
