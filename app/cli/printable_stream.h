#pragma once
// The CLI's output edge: everything accellab-cli writes to stdout and stderr passes through
// core::util::printable line by line, so a string that came from a file (a device or stack
// name, a run log's torch version, a CSV row id, an error quoting a byte) shows its terminal
// escapes and invalid UTF-8 instead of obeying them. Clean text passes unchanged; JSON output
// is already escaped by core::util::Json and passes unchanged too.
#include <ostream>
#include <streambuf>
#include <string>

namespace app::cli {

// A streambuf that forwards to `target`, each line sanitised (newlines and tabs kept). A flush
// forwards what is pending, holding back only the bytes of an unfinished UTF-8 character.
class PrintableStreamBuf : public std::streambuf {
public:
  explicit PrintableStreamBuf(std::streambuf* target) : m_target(target) {}
  ~PrintableStreamBuf() override;
  PrintableStreamBuf(const PrintableStreamBuf&) = delete;
  PrintableStreamBuf& operator=(const PrintableStreamBuf&) = delete;

protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

private:
  void forward(std::size_t bytes);  // sanitises and writes the first `bytes` of m_pending
  std::streambuf* m_target;
  std::string m_pending;  // the current line, not yet forwarded
};

// An ostream over PrintableStreamBuf, flushed when it goes out of scope. An unbuffered target
// (std::cerr) stays unbuffered: each output operation is forwarded at once.
class PrintableStream : public std::ostream {
public:
  explicit PrintableStream(std::ostream& target) : std::ostream(nullptr), m_buf(target.rdbuf()) {
    rdbuf(&m_buf);
    setf(target.flags() & std::ios_base::unitbuf);
  }
  ~PrintableStream() override { flush(); }

private:
  PrintableStreamBuf m_buf;
};

}  // namespace app::cli
