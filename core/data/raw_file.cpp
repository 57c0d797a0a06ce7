#include "core/data/raw_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <zlib.h>

#include "core/util/error.h"

namespace core::data {

using util::Error;

bool looksGzipped(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

std::vector<std::uint8_t> gunzip(const std::vector<std::uint8_t>& compressed, const std::string& what) {
  std::vector<std::uint8_t> out;
  out.reserve(compressed.size() * 4);
  z_stream zs{};
  // 16 + MAX_WBITS: expect a gzip header and trailer (CRC and length are checked by zlib).
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw Error(what + ": cannot initialise zlib");
  std::size_t consumed = 0;
  constexpr std::size_t kChunk = 1 << 20;
  while (consumed < compressed.size()) {
    zs.next_in = const_cast<Bytef*>(compressed.data() + consumed);
    const std::size_t avail = std::min<std::size_t>(compressed.size() - consumed, 1u << 30);
    zs.avail_in = static_cast<uInt>(avail);
    int rc = Z_OK;
    while (rc == Z_OK) {
      const std::size_t before = out.size();
      out.resize(before + kChunk);
      zs.next_out = out.data() + before;
      zs.avail_out = static_cast<uInt>(kChunk);
      rc = inflate(&zs, Z_NO_FLUSH);
      out.resize(before + (kChunk - zs.avail_out));
      if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // input exhausted mid-stream
      if (rc == Z_BUF_ERROR) rc = Z_OK;                    // output full: go on
    }
    consumed += avail - zs.avail_in;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (gzip -c a b > c); trailing zero padding is accepted.
      bool onlyZeros = true;
      for (std::size_t i = consumed; i < compressed.size() && onlyZeros; ++i) onlyZeros = compressed[i] == 0;
      if (consumed >= compressed.size() || onlyZeros) {
        inflateEnd(&zs);
        return out;
      }
      inflateReset(&zs);
      continue;
    }
    const std::string msg = zs.msg ? zs.msg : "";
    inflateEnd(&zs);
    if (rc == Z_BUF_ERROR || rc == Z_OK)
      throw Error(what + ": gzip data is truncated (the stream ends before its end marker)");
    throw Error(what + ": corrupt gzip data" + (msg.empty() ? std::string() : " (" + msg + ")"));
  }
  inflateEnd(&zs);
  throw Error(what + ": gzip data is truncated (the stream ends before its end marker)");
}

std::vector<std::uint8_t> readDataFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(path + ": cannot read file size");
  in.seekg(0, std::ios::beg);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    throw Error(path + ": read failed after " + std::to_string(in.gcount()) + " of " + std::to_string(size) +
                " bytes");
  if (looksGzipped(bytes)) return gunzip(bytes, path);
  return bytes;
}

}  // namespace core::data
