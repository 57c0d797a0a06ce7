#pragma once
// A byte corpus for the language models: Debian's `fortunes` package (every extension-less
// regular file directly in /usr/share/games/fortunes, sorted by name, concatenated), or any
// other UTF-8/byte text file or folder (--data-dir). The last tenth is the validation split.
#include <cstdint>
#include <string>
#include <vector>

namespace core::data {

inline constexpr const char* kFortunesDir = "/usr/share/games/fortunes";
// What to tell a user whose default corpus is missing.
inline constexpr const char* kFortunesInstallHint =
    "install Debian's `fortunes` package: sudo apt-get install fortunes; or give --data-dir with any text file or "
    "folder";

struct TextCorpus {
  std::vector<std::uint8_t> train, validation;
  std::string source;          // the folder or file read
  std::int64_t files = 0;
};

// A folder: its extension-less regular files (no '.' in the name; symlinks and folders skipped),
// sorted by name, concatenated; a file: its bytes. Throws core::util::Error naming the path
// (and `missingHint`, e.g. kFortunesInstallHint for the default folder) when there is nothing
// to read, or when the corpus is too small for one window of `window` bytes in each split.
TextCorpus loadTextCorpus(const std::string& path, int window = 129, const std::string& missingHint = "");

}  // namespace core::data
