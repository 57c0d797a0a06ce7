#pragma once
// Fault injection for the write tests: a full disk, made with the file-size limit
// (RLIMIT_FSIZE) instead of a mount, so it runs on every CTest run, as any user. While a
// FileSizeLimit lives, a write that would take a file past `bytes` fails with EFBIG (SIGXFSZ
// is ignored), as a write to a disk with `bytes` free would fail with ENOSPC. For a child
// process, limitChild() does the same between fork and exec (QProcess::setChildProcessModifier).
#include <sys/resource.h>

#include <QDir>
#include <QStringList>
#include <csignal>

namespace testdata {

class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &m_old);
    m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = m_old;
    small.rlim_cur = bytes;
    m_ok = setrlimit(RLIMIT_FSIZE, &small) == 0;
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &m_old);
    std::signal(SIGXFSZ, m_oldHandler);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool ok() const { return m_ok; }

  // In a child after fork (async-signal-safe calls only): the limit, and SIGXFSZ ignored
  // (an ignored signal stays ignored across exec).
  static void limitChild(rlim_t bytes) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small{};
    getrlimit(RLIMIT_FSIZE, &small);
    small.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &small);
  }

private:
  struct rlimit m_old{};
  void (*m_oldHandler)(int) = SIG_DFL;
  bool m_ok = false;
};

// Every entry of `dir`, hidden ones included: a temporary file left behind shows here.
inline QStringList allEntries(const QString& dir) {
  return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

}  // namespace testdata
