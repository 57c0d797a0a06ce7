#include "core/util/files.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/error.h"
#include "core/util/printable.h"

namespace fs = std::filesystem;

namespace core::util {
namespace {

// A path as it appears in a message: never a terminal escape.
std::string shown(const std::string& path) { return printable(path, false); }

std::string mib(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string openError(int err) {
  if (err == ELOOP) return "too many levels of symbolic links (a symlink loop)";
  if (err == ENOENT) return "no such file (or a symlink to nothing)";
  return std::strerror(err);
}

bool endsWith(const std::string& name, const std::string& suffix, bool ignoreCase) {
  const std::size_t at = name.size() - suffix.size();
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    char a = name[at + i], b = suffix[i];
    if (ignoreCase) {
      if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
      if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    }
    if (a != b) return false;
  }
  return true;
}

// Closes a descriptor on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading only when it is a regular file. O_NONBLOCK: opening a FIFO
// without a writer must not hang; O_NOCTTY: a terminal device must not become ours.
int openRegular(const std::string& path, struct stat& st, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    why = shown(path) + ": cannot open: " + openError(errno);
    return -1;
  }
  if (::fstat(fd, &st) != 0) {
    why = shown(path) + ": cannot read: " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    why = shown(path) + ": is " + kindOf(st.st_mode) + ", not a regular file; AccelLab reads regular files only";
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

void writeFileAtomic(const std::string& path, std::string_view content) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw Error(shown(path) + ": cannot create a temporary file beside it: " + std::strerror(errno));
  const auto fail = [&](const std::string& what) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw Error(shown(path) + ": " + what + " (the file was left as it was)");
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(std::string("write failed: ") + std::strerror(errno));
    }
    if (n == 0) fail("write failed: no progress (disk full?)");
    done += static_cast<std::size_t>(n);
  }
  // Written is not stored: a full disk may only show at fsync (delayed allocation), and the
  // size is checked so that a short write the kernel did not report cannot pass as whole.
  if (::fsync(fd) != 0) fail(std::string("write failed: ") + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != content.size())
    fail("write failed: " + std::to_string(st.st_size) + " of " + std::to_string(content.size()) + " bytes reached the disk");
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw Error(shown(path) + ": write failed: " + why + " (the file was left as it was)");
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw Error(shown(path) + ": cannot replace file: " + why + " (the file was left as it was)");
  }
  // The rename itself is durable only once the folder is synced.
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::optional<std::string> tryReadFile(const std::string& path, std::uint64_t maxBytes, std::string& why) {
  struct stat st{};
  const Fd file{openRegular(path, st, why)};
  if (file.fd < 0) return std::nullopt;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > maxBytes) {
    why = shown(path) + ": " + mib(size) + " is larger than a file of this kind can be (at most " + mib(maxBytes) + ")";
    return std::nullopt;
  }
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  std::size_t done = 0;
  // Read one byte past the size seen: a file that grew meanwhile is noticed, never followed
  // past the cap.
  char extra = 0;
  for (;;) {
    char* to = done < text.size() ? text.data() + done : &extra;
    const std::size_t want = done < text.size() ? text.size() - done : 1;
    const ssize_t n = ::read(file.fd, to, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      why = shown(path) + ": read failed: " + std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    if (done >= text.size()) {
      why = shown(path) + ": the file grew while it was read; try again";
      return std::nullopt;
    }
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

std::string readFile(const std::string& path, std::uint64_t maxBytes) {
  std::string why;
  std::optional<std::string> text = tryReadFile(path, maxBytes, why);
  if (!text) throw Error(why);
  return std::move(*text);
}

std::string whyNotRegularFile(const std::string& path) {
  struct stat st{};
  std::string why;
  const Fd file{openRegular(path, st, why)};
  return why;
}

FileListing listFiles(const std::string& dir, const std::vector<std::string>& suffixes, const ListOptions& options) {
  FileListing out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    out.warnings.push_back(shown(dir) + ": cannot list the folder: " + ec.message());
    return out;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      out.warnings.push_back(shown(dir) + ": listing stopped: " + ec.message());
      break;
    }
    const std::string name = it->path().filename().string();
    bool wanted = false;
    for (const auto& s : suffixes)
      wanted = wanted || (name.size() > s.size() && endsWith(name, s, options.ignoreCase));
    if (!wanted || name.front() == '.') continue;
    const std::string path = it->path().string();
    struct stat st{};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
    if (const std::string why = whyNotRegularFile(path); !why.empty()) {
      out.warnings.push_back(why + " (skipped)");
      continue;
    }
    if (options.maxFiles > 0 && out.files.size() >= options.maxFiles) {
      out.truncated = true;
      break;
    }
    out.files.push_back(path);
  }
  std::sort(out.files.begin(), out.files.end());
  return out;
}

bool isInside(const std::string& path, const std::string& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return false;
  const fs::path d = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) return false;
  auto pi = p.begin();
  for (auto di = d.begin(); di != d.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs, bool force,
                     const std::string& forceFlag) {
  std::error_code ec;
  for (const auto& in : inputs) {
    std::error_code e1, e2;
    if (fs::equivalent(path, in, e1) && !e1 && !e2)
      throw Error(shown(path) + ": is also an input of this command; it is never overwritten (choose another output name)");
  }
  if (fs::exists(fs::symlink_status(path, ec)) && !force)
    throw Error(shown(path) + ": already exists; choose another name, or pass " + forceFlag + " to replace it");
}

std::string resourceDir() {
  if (const char* env = std::getenv("ACCELLAB_RESOURCES"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "accellab";
    if (fs::is_directory(installed / "devices", ec)) return installed.string();
  }
  return ACCELLAB_SOURCE_RESOURCES;
}

std::string userDataDir() {
  if (const char* env = std::getenv("ACCELLAB_USER_DIR"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return (fs::path(xdg) / "accellab").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".local" / "share" / "accellab").string();
}

std::string todayUtc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace core::util
