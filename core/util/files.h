#pragma once
// File helpers for core (no Qt): atomic writes and locating the shipped resources/ folder.
#include <cstdint>
#include <string>
#include <string_view>

namespace core::util {

// Writes `content` to `path` atomically: a temporary file in the same folder is written,
// flushed and renamed over `path`, so readers see the old file or the new one, never half.
// Throws Error naming the path on failure.
void writeFileAtomic(const std::string& path, std::string_view content);

// A text file up to `maxBytes` (checked from its size before reading: a huge or sparse file
// costs nothing); a folder, an unreadable file or a larger one throws naming the path.
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{256} << 20;
std::string readFile(const std::string& path, std::uint64_t maxBytes = kMaxTextFileBytes);

// The folder holding devices/ and presets/. Search order: $ACCELLAB_RESOURCES, then
// <exe>/../share/accellab (installed), then the source tree's resources/ (build tree).
std::string resourceDir();

// The user's own folder for extra device files and saved presets:
// $ACCELLAB_USER_DIR, else $XDG_DATA_HOME/accellab, else ~/.local/share/accellab.
std::string userDataDir();

// Today's date in UTC, "YYYY-MM-DD" (the date a measurement or a fitted figure is stamped with).
std::string todayUtc();

}  // namespace core::util
