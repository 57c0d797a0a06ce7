#include "app/cli/printable_stream.h"

#include "core/util/printable.h"

namespace app::cli {

namespace {

// How many bytes at the end of `s` begin a UTF-8 character that is not complete yet (0 when
// the text ends on a whole character or on bytes that can never complete one).
std::size_t unfinishedTail(const std::string& s) {
  const std::size_t n = s.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back for the lead
    const std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace

PrintableStreamBuf::~PrintableStreamBuf() {
  forward(m_pending.size());
  m_target->pubsync();
}

void PrintableStreamBuf::forward(std::size_t bytes) {
  if (bytes == 0) return;
  const std::string shown = core::util::printable(std::string_view(m_pending).substr(0, bytes), true);
  m_target->sputn(shown.data(), static_cast<std::streamsize>(shown.size()));
  m_pending.erase(0, bytes);
}

PrintableStreamBuf::int_type PrintableStreamBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  xsputn(&ch, 1);
  return c;
}

std::streamsize PrintableStreamBuf::xsputn(const char* s, std::streamsize n) {
  m_pending.append(s, static_cast<std::size_t>(n));
  // Forward every complete line (a newline is never inside a UTF-8 character).
  if (const std::size_t nl = m_pending.rfind('\n'); nl != std::string::npos) forward(nl + 1);
  return n;
}

int PrintableStreamBuf::sync() {
  forward(m_pending.size() - unfinishedTail(m_pending));
  return m_target->pubsync();
}

}  // namespace app::cli
