#include "core/util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/error.h"

namespace fs = std::filesystem;

namespace core::util {

void writeFileAtomic(const std::string& path, std::string_view content) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw Error(path + ": cannot create a temporary file beside it: " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw Error(path + ": write failed: " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw Error(path + ": write failed: " + why);
  }
  ::chmod(tmpl.c_str(), 0644);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw Error(path + ": cannot replace file: " + why);
  }
}

std::string readFile(const std::string& path, std::uint64_t maxBytes) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(path + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file: " + std::strerror(errno));
  if (const std::uintmax_t size = fs::file_size(path, ec); !ec && size > maxBytes)
    throw Error(path + ": " + std::to_string(size >> 20) + " MiB is larger than a file of this kind can be (at most " +
                std::to_string(maxBytes >> 20) + " MiB)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
