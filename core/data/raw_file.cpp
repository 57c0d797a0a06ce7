#include "core/data/raw_file.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
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

namespace {

std::string megabytes(std::int64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MB";
}

}  // namespace

DataFile::DataFile(const std::string& path) : m_path(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": cannot open file: it is a folder");
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw Error(path + ": cannot open file: " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  probe.read(reinterpret_cast<char*>(magic), 2);
  m_gzipped = probe.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  probe.clear();
  probe.seekg(0, std::ios::end);
  m_bytesOnDisk = static_cast<std::int64_t>(probe.tellg());
  if (m_bytesOnDisk < 0) throw Error(path + ": cannot read the file size");
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot open file: " + std::strerror(errno));
  gzbuffer(f, 1 << 17);
  m_file = f;
}

DataFile::~DataFile() {
  if (m_file) gzclose_r(static_cast<gzFile>(m_file));
}

std::int64_t DataFile::mostBytesItCanHold() const {
  // Deflate's best ratio is 1032:1; a little slack covers the gzip header and tiny files.
  return m_gzipped ? m_bytesOnDisk * 1032 + 4096 : m_bytesOnDisk;
}

std::size_t DataFile::read(std::uint8_t* out, std::size_t n) {
  auto* f = static_cast<gzFile>(m_file);
  std::size_t done = 0;
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(f, out + done, chunk);
    int err = Z_OK;
    const char* msg = gzerror(f, &err);
    if (got < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      if (err == Z_BUF_ERROR) throw Error(m_path + ": gzip data is truncated (the stream ends before its end marker)");
      throw Error(m_path + (m_gzipped ? ": corrupt gzip data" : ": read failed") +
                  (msg && *msg ? std::string(" (") + msg + ")" : std::string()));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::vector<std::uint8_t> readDataFile(const std::string& path, std::int64_t maxBytes) {
  DataFile file(path);
  if (!file.gzipped() && file.bytesOnDisk() > maxBytes)
    throw Error(path + ": " + megabytes(file.bytesOnDisk()) + " is larger than a data file of this kind can be (at most " +
                megabytes(maxBytes) + "); is it the right file?");
  std::vector<std::uint8_t> bytes;
  constexpr std::size_t kChunk = 1 << 20;
  for (;;) {
    const std::size_t before = bytes.size();
    const std::size_t want = static_cast<std::size_t>(
        std::min<std::int64_t>(kChunk, maxBytes + 1 - static_cast<std::int64_t>(before)));
    bytes.resize(before + want);
    const std::size_t got = file.read(bytes.data() + before, want);
    bytes.resize(before + got);
    if (static_cast<std::int64_t>(bytes.size()) > maxBytes)
      throw Error(path + ": inflates to more than " + megabytes(maxBytes) +
                  ", more than a data file of this kind can be (a decompression bomb, or not a dataset file)");
    if (got < want) return bytes;
  }
}

}  // namespace core::data
