#pragma once
// File helpers for core (no Qt): the one way AccelLab reads, lists and writes files, and
// locating the shipped resources/ folder.
//
// Reading: regular files only (symlinks are followed; a symlink loop, a FIFO, a device or a
// folder is refused with its name and why), at most the cap for that kind of file, read with
// the bound applied while reading (a file that grows under us is refused, not followed).
// Writing: a temporary file beside the target, every byte and the final size checked, fsync,
// then rename; a failed write leaves the old file as it was and throws naming the path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core::util {

// Size caps, one per kind of file AccelLab reads. Data files a person writes (devices, stacks,
// presets, studies, readings, fit specs) are kilobytes; the caps leave ample room.
inline constexpr std::uint64_t kMaxDataFileBytes = std::uint64_t{1} << 20;       // 1 MiB
inline constexpr std::uint64_t kMaxReferenceCsvBytes = std::uint64_t{16} << 20;  // calibration tables
inline constexpr std::uint64_t kMaxRunLogBytes = std::uint64_t{64} << 20;        // a measured job's JSONL log
inline constexpr std::uint64_t kMaxRunFileBytes = std::uint64_t{64} << 20;       // a run of the history
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{256} << 20;     // a text corpus

// Writes `content` to `path` atomically: a temporary file in the same folder is written,
// flushed, its size checked and renamed over `path`, so readers see the old file or the new
// one, never half. Throws Error naming the path on failure (the old file is left in place).
void writeFileAtomic(const std::string& path, std::string_view content);

// A regular file up to `maxBytes`; anything else throws Error naming the path and why
// ("is a FIFO, not a regular file", "a symlink loop", "is larger than ...").
std::string readFile(const std::string& path, std::uint64_t maxBytes = kMaxTextFileBytes);

// The same without throwing: the text, or nullopt with `why` set to the message.
std::optional<std::string> tryReadFile(const std::string& path, std::uint64_t maxBytes, std::string& why);

// Why `path` cannot be read as a regular file (empty when it can): the one check behind
// readFile and listFiles, also for callers that hand a path to another reader.
std::string whyNotRegularFile(const std::string& path);

// The regular files of a folder whose names end in one of `suffixes` (".json"), sorted by
// name. Never throws: a missing folder lists nothing; an entry that cannot be read (a symlink
// loop, a dangling link, a FIFO or device, no permission) is left out and named in
// `warnings`, one line each. Folders inside and hidden files (".name") are not entered and
// not warned about.
struct FileListing {
  std::vector<std::string> files;
  std::vector<std::string> warnings;
  bool truncated = false;  // ListOptions::maxFiles were found and listing stopped: `files` is partial
};
struct ListOptions {
  bool ignoreCase = false;   // suffixes match in any ASCII case (".png" finds "a.PNG")
  std::size_t maxFiles = 0;  // stop once more than this many match (0 = no cap): a bound on memory
};
FileListing listFiles(const std::string& dir, const std::vector<std::string>& suffixes,
                      const ListOptions& options = {});

// True when `path` lies inside `dir` once both are resolved (symlinks, "..").
bool isInside(const std::string& path, const std::string& dir);

// `path` if it does not exist; otherwise throws Error telling to choose another name or pass
// `forceFlag` (the CLI's force flag). Also throws when `path` is one of `inputs` (after
// resolving), whatever the flag: a command never overwrites what it reads.
void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs, bool force,
                     const std::string& forceFlag);

// The folder holding devices/ and presets/. Search order: $ACCELLAB_RESOURCES, then
// <exe>/../share/accellab (installed), then the source tree's resources/ (build tree).
std::string resourceDir();

// The user's own folder for extra device files and saved presets:
// $ACCELLAB_USER_DIR, else $XDG_DATA_HOME/accellab, else ~/.local/share/accellab.
std::string userDataDir();

// Today's date in UTC, "YYYY-MM-DD" (the date a measurement or a fitted figure is stamped with).
std::string todayUtc();

}  // namespace core::util
