#include "core/data/text_corpus.h"

#include <algorithm>
#include <filesystem>

#include "core/util/error.h"
#include "core/util/files.h"

namespace core::data {

namespace fs = std::filesystem;

TextCorpus loadTextCorpus(const std::string& path, int window, const std::string& missingHint) {
  auto missing = [&](const std::string& what) -> util::Error {
    return util::Error(path + ": " + what + (missingHint.empty() ? "" : " (" + missingHint + ")"));
  };
  std::error_code ec;
  TextCorpus c;
  c.source = path;
  std::vector<std::uint8_t> all;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      const std::string name = e.path().filename().string();
      if (name.find('.') != std::string::npos || e.is_symlink(ec) || !e.is_regular_file(ec)) continue;
      files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw missing("holds no extension-less text files");
    for (const auto& f : files) {
      const std::string text = util::readFile(f.string());
      all.insert(all.end(), text.begin(), text.end());
    }
    c.files = static_cast<std::int64_t>(files.size());
  } else if (fs::is_regular_file(path, ec)) {
    const std::string text = util::readFile(path);
    all.assign(text.begin(), text.end());
    c.files = 1;
  } else {
    throw missing("no such file or folder");
  }
  const std::size_t val = all.size() / 10;
  if (val < static_cast<std::size_t>(window) || all.size() - val < static_cast<std::size_t>(window))
    throw util::Error(path + ": " + std::to_string(all.size()) + " bytes is too small: each split needs at least one " +
                      std::to_string(window) + "-byte window (at least " + std::to_string(10 * window) + " bytes)");
  c.train.assign(all.begin(), all.end() - static_cast<std::ptrdiff_t>(val));
  c.validation.assign(all.end() - static_cast<std::ptrdiff_t>(val), all.end());
  return c;
}

}  // namespace core::data
