// Zip archives: a reader over an in-memory byte span and a writer to a file or a string, the
// container of PyTorch's torch.save format (torch_zip.hpp) and of NumPy's .npz.
//
// The reader trusts nothing in the archive: the end-of-central-directory record (found behind
// an optional comment), the zip64 locator and record, every central directory entry and every
// local header are bounds-checked against the buffer, local headers must agree with their
// central entries, and entry data may not run into the central directory. Methods 0 (stored) and
// 8 (deflate, zlib's raw inflate) are read; the CRC-32 is verified. Any defect is a
// tensorplay::Error whose message starts with "PytorchStreamReader failed reading zip archive"
// (PyTorch's wording), never a read past the buffer. stored_view() hands out a zero-copy span of
// a stored entry's bytes, so a caller that maps the file can map records.
//
// The writer aligns every stored entry's data to 64 bytes through an "FB" extra field in the
// local header, as PyTorch's PyTorchStreamWriter does (so the records of a written file can be
// mapped and used in place), or deflates an entry (zlib's raw deflate). It switches to zip64
// (extra fields, zip64 end records) when a size, an offset or the entry count needs it.
//
// Deflate (reading and writing method 8) is zlib's, under TENSORPLAY_USE_ZLIB (CMake's
// TENSORPLAY_USE_ZLIB links zlib and sets it); without it a deflated entry raises
// NotImplementedError naming the macro. Stored archives - torch.save's, np.savez's - need nothing:
// the CRC-32 is zlib's when it is there and a table-driven one otherwise.
#pragma once

#include <tensorplay/config.hpp>

#if TENSORPLAY_USE_ZLIB
#include <zlib.h>
#endif

#include <array>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tensorplay/core/error.hpp>

namespace tensorplay::serialize {

namespace detail {

using ::tensorplay::detail::str_cat;

inline constexpr uint32_t kLocalHeaderSig = 0x04034b50;
inline constexpr uint32_t kCentralSig = 0x02014b50;
inline constexpr uint32_t kEndSig = 0x06054b50;
inline constexpr uint32_t kZip64EndSig = 0x06064b50;
inline constexpr uint32_t kZip64LocatorSig = 0x07064b50;
inline constexpr std::size_t kLocalHeaderSize = 30;
inline constexpr std::size_t kCentralHeaderSize = 46;
inline constexpr std::size_t kEndSize = 22;
inline constexpr std::size_t kZip64EndSize = 56;
inline constexpr std::size_t kZip64LocatorSize = 20;
inline constexpr uint64_t kU32Max = 0xFFFFFFFFu;
// Deflate never compresses better than about 1032:1, so an entry that claims more is hostile
// (and would make us allocate its claimed size before finding out).
inline constexpr uint64_t kMaxDeflateRatio = 1032;

[[noreturn]] inline void zip_fail(const std::string& what) {
  throw Error("PytorchStreamReader failed reading zip archive: " + what);
}

inline uint64_t read_le(const std::byte* p, int n) noexcept {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

inline void put_le(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

#if TENSORPLAY_USE_ZLIB
// CRC-32 of any length (zlib's crc32_z takes a z_size_t).
inline uint32_t crc32_of(const void* data, std::size_t n) noexcept {
  return static_cast<uint32_t>(
      ::crc32_z(::crc32_z(0L, Z_NULL, 0), static_cast<const Bytef*>(data), n));
}
#else
// CRC-32 (the zip polynomial, reflected), eight bytes per step through eight tables
// ("slicing-by-8"): table[k][b] is the CRC of byte b followed by k zero bytes.
inline constexpr auto kCrc32Tables = [] {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][b] = c;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}();
inline uint32_t crc32_of(const void* data, std::size_t n) noexcept {
  const auto& t = kCrc32Tables;
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (; n >= 8; n -= 8, p += 8) {
    const uint32_t lo =
        c ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n; --n, ++p) c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}
#endif

// Without zlib, a deflated entry can be neither read nor written.
[[noreturn]] inline void no_zlib(const std::string& name) {
  throw NotImplementedError(
      str_cat("zip entry ", name,
              ": deflate (zip method 8) needs zlib; build with TENSORPLAY_USE_ZLIB=1 (CMake option "
              "TENSORPLAY_USE_ZLIB=ON, Debian package zlib1g-dev)"));
}

}  // namespace detail

// One entry as the central directory describes it, with its sizes and offsets already widened by
// any zip64 extra field.
struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflate
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
  uint64_t data_offset = 0;  // where the entry's (compressed) bytes start in the archive
};

// Reads an archive held in memory. The reader does not own the bytes: they must outlive it and
// every span stored_view() returned. Thread safety: const members may be called concurrently.
class ZipReader {
 public:
  explicit ZipReader(std::span<const std::byte> data) : data_(data) { parse(); }
  ZipReader(const void* data, std::size_t size)
      : ZipReader(std::span<const std::byte>(static_cast<const std::byte*>(data), size)) {}

  // Entry names in central directory order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }
  const std::vector<ZipEntry>& entries() const noexcept { return entries_; }
  bool contains(std::string_view name) const { return index_.count(std::string(name)) != 0; }

  const ZipEntry& entry(std::string_view name) const {
    auto it = index_.find(std::string(name));
    TP_CHECK(it != index_.end(), "PytorchStreamReader failed locating file ", std::string(name),
             ": file not found");
    return entries_[it->second];
  }

  // The entry's bytes, inflated if it was deflated; the CRC-32 is checked.
  std::string read(std::string_view name) const {
    const ZipEntry& e = entry(name);
    const std::byte* src = data_.data() + e.data_offset;
    std::string out;
    if (e.method == 0) {
      out.assign(reinterpret_cast<const char*>(src), static_cast<std::size_t>(e.compressed_size));
    } else {
      out = inflate_entry(e, src);
    }
    check_crc(e, out.data(), out.size());
    return out;
  }

  // A stored entry's bytes in place (zero copy). The CRC-32 is checked unless check_crc is
  // false (one pass over the bytes; a caller mapping a large file may prefer to skip it).
  std::span<const std::byte> stored_view(std::string_view name, bool check_crc = true) const {
    const ZipEntry& e = entry(name);
    TP_CHECK(e.method == 0, "PytorchStreamReader: record ", e.name, " is compressed (method ",
             static_cast<int>(e.method), "); only stored records can be viewed in place");
    auto view = data_.subspan(static_cast<std::size_t>(e.data_offset),
                              static_cast<std::size_t>(e.compressed_size));
    if (check_crc) this->check_crc(e, view.data(), view.size());
    return view;
  }

 private:
  // [offset, offset + n) must lie in the buffer; says what was being read otherwise.
  void need(uint64_t offset, uint64_t n, const char* what) const {
    if (offset > data_.size() || n > data_.size() - offset) {
      detail::zip_fail(detail::str_cat(what, " at offset ", static_cast<long long>(offset), " (",
                                       static_cast<long long>(n),
                                       " bytes) runs past the end of the ",
                                       static_cast<long long>(data_.size()), "-byte archive"));
    }
  }
  uint64_t u(uint64_t offset, int n) const { return detail::read_le(data_.data() + offset, n); }

  void parse() {
    using namespace detail;
    if (data_.size() < kEndSize) zip_fail("failed finding central directory (file too short)");
    // The end record is the last thing in the file but for a comment of up to 65535 bytes; scan
    // backwards for its signature and take the first whose comment length reaches the end.
    const uint64_t last = data_.size() - kEndSize;
    const uint64_t first = last > 0xFFFF ? last - 0xFFFF : 0;
    uint64_t eocd = UINT64_MAX;
    for (uint64_t p = last + 1; p-- > first;) {
      if (u(p, 4) == kEndSig && p + kEndSize + u(p + 20, 2) == data_.size()) {
        eocd = p;
        break;
      }
    }
    if (eocd == UINT64_MAX) zip_fail("failed finding central directory");
    uint64_t count = u(eocd + 10, 2);
    uint64_t cd_size = u(eocd + 12, 4);
    uint64_t cd_offset = u(eocd + 16, 4);
    if (u(eocd + 4, 2) != 0 || u(eocd + 6, 2) != 0)
      zip_fail("multi-disk archives are not supported");
    if (eocd >= kZip64LocatorSize && u(eocd - kZip64LocatorSize, 4) == kZip64LocatorSig) {
      const uint64_t loc = eocd - kZip64LocatorSize;
      const uint64_t z64 = u(loc + 8, 8);
      need(z64, kZip64EndSize, "zip64 end of central directory record");
      if (u(z64, 4) != kZip64EndSig) zip_fail("bad zip64 end of central directory signature");
      if (z64 + kZip64EndSize > loc) zip_fail("zip64 end record overlaps its locator");
      count = u(z64 + 32, 8);
      cd_size = u(z64 + 40, 8);
      cd_offset = u(z64 + 48, 8);
      end_of_data_ = z64;
    } else {
      end_of_data_ = eocd;
    }
    need(cd_offset, cd_size, "central directory");
    cd_offset_ = cd_offset;
    if (cd_offset + cd_size > end_of_data_) zip_fail("central directory overlaps its end record");
    // Every entry takes at least 46 bytes, which bounds a hostile count before we reserve.
    if (count > cd_size / kCentralHeaderSize) {
      zip_fail(str_cat("central directory claims ", static_cast<long long>(count),
                       " entries but is only ", static_cast<long long>(cd_size), " bytes"));
    }
    entries_.reserve(static_cast<std::size_t>(count));
    uint64_t p = cd_offset;
    const uint64_t cd_end = cd_offset + cd_size;
    for (uint64_t i = 0; i < count; ++i) {
      if (p + kCentralHeaderSize > cd_end) zip_fail("central directory entry runs past its end");
      if (u(p, 4) != kCentralSig) zip_fail("bad central directory entry signature");
      ZipEntry e;
      const uint64_t flags = u(p + 8, 2);
      e.method = static_cast<uint16_t>(u(p + 10, 2));
      e.crc32 = static_cast<uint32_t>(u(p + 16, 4));
      e.compressed_size = u(p + 20, 4);
      e.uncompressed_size = u(p + 24, 4);
      const uint64_t name_len = u(p + 28, 2), extra_len = u(p + 30, 2), comment_len = u(p + 32, 2);
      e.local_header_offset = u(p + 42, 4);
      const uint64_t var = p + kCentralHeaderSize;
      if (var + name_len + extra_len + comment_len > cd_end) {
        zip_fail("central directory entry's name or extra field runs past its end");
      }
      e.name.assign(reinterpret_cast<const char*>(data_.data() + var),
                    static_cast<std::size_t>(name_len));
      if (flags & 1) zip_fail("entry " + e.name + " is encrypted");
      if (e.method != 0 && e.method != 8) {
        zip_fail(str_cat("entry ", e.name, " uses unsupported compression method ",
                         static_cast<int>(e.method), " (only 0 stored and 8 deflate are read)"));
      }
      read_zip64_extra(e, var + name_len, extra_len);
      locate_data(e);
      if (!index_.emplace(e.name, entries_.size()).second) zip_fail("duplicate entry " + e.name);
      entries_.push_back(std::move(e));
      p = var + name_len + extra_len + comment_len;
    }
  }

  // The zip64 extended information field (id 1) holds, in order, only the fields whose 32-bit
  // slots are saturated.
  void read_zip64_extra(ZipEntry& e, uint64_t p, uint64_t len) const {
    const uint64_t end = p + len;
    while (p + 4 <= end) {
      const uint64_t id = u(p, 2), size = u(p + 2, 2);
      if (p + 4 + size > end) detail::zip_fail("extra field of " + e.name + " runs past its end");
      if (id == 1) {
        uint64_t q = p + 4;
        auto take = [&](uint64_t& field) {
          if (field != detail::kU32Max) return;
          if (q + 8 > p + 4 + size)
            detail::zip_fail("zip64 extra field of " + e.name + " too short");
          field = u(q, 8);
          q += 8;
        };
        take(e.uncompressed_size);
        take(e.compressed_size);
        take(e.local_header_offset);
      }
      p += 4 + size;
    }
  }

  // Checks the local header against the central entry and finds where the data starts.
  void locate_data(ZipEntry& e) const {
    using namespace detail;
    const uint64_t h = e.local_header_offset;
    need(h, kLocalHeaderSize, ("local header of " + e.name).c_str());
    if (u(h, 4) != kLocalHeaderSig) zip_fail("bad local header signature for " + e.name);
    if (u(h + 8, 2) != e.method) zip_fail("local header of " + e.name + " disagrees on the method");
    const uint64_t name_len = u(h + 26, 2), extra_len = u(h + 28, 2);
    need(h + kLocalHeaderSize, name_len + extra_len, ("local header of " + e.name).c_str());
    if (std::string_view(reinterpret_cast<const char*>(data_.data() + h + kLocalHeaderSize),
                         static_cast<std::size_t>(name_len)) != e.name) {
      zip_fail("local header name disagrees with the central directory for " + e.name);
    }
    e.data_offset = h + kLocalHeaderSize + name_len + extra_len;
    need(e.data_offset, e.compressed_size, ("data of " + e.name).c_str());
    if (e.data_offset + e.compressed_size > cd_offset_) {
      zip_fail("data of " + e.name + " runs into the central directory");
    }
    if (e.method == 0 && e.compressed_size != e.uncompressed_size) {
      zip_fail("stored entry " + e.name + " has different compressed and uncompressed sizes");
    }
    if (e.method == 8 && e.uncompressed_size > e.compressed_size * kMaxDeflateRatio + 1024) {
      zip_fail("deflated entry " + e.name + " claims an impossible compression ratio");
    }
  }

  static std::string inflate_entry(const ZipEntry& e, const std::byte* src) {
#if !TENSORPLAY_USE_ZLIB
    (void)src;
    detail::no_zlib(e.name);
#else
    std::string out(static_cast<std::size_t>(e.uncompressed_size), '\0');
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw Error("zlib inflateInit2 failed");
    uint64_t in_left = e.compressed_size, out_left = e.uncompressed_size;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(src));
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    int rc = Z_OK;
    // zlib counts in 32-bit uInt, so feed and drain at most 1 GiB per call.
    constexpr uint64_t kChunk = uint64_t{1} << 30;
    while (rc == Z_OK) {
      const uInt in_now = static_cast<uInt>(std::min(in_left, kChunk));
      const uInt out_now = static_cast<uInt>(std::min(out_left, kChunk));
      zs.avail_in = in_now;
      zs.avail_out = out_now;
      rc = ::inflate(&zs, Z_NO_FLUSH);
      in_left -= in_now - zs.avail_in;
      out_left -= out_now - zs.avail_out;
      if (rc == Z_BUF_ERROR && (in_left == 0 || out_left == 0)) break;  // no progress possible
      if (rc == Z_OK && in_now == zs.avail_in && out_now == zs.avail_out) break;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || out_left != 0) {
      detail::zip_fail("corrupt deflate data in " + e.name +
                       (rc == Z_STREAM_END ? " (shorter than its declared size)" : ""));
    }
    return out;
#endif
  }

  static void check_crc(const ZipEntry& e, const void* data, std::size_t n) {
    const uint32_t crc = detail::crc32_of(data, n);
    if (crc != e.crc32) {
      detail::zip_fail(detail::str_cat("CRC-32 mismatch in ", e.name, " (stored ",
                                       static_cast<long long>(e.crc32), ", computed ",
                                       static_cast<long long>(crc), ")"));
    }
  }

  std::span<const std::byte> data_;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
  uint64_t end_of_data_ = 0;  // the central directory ends before this offset
  uint64_t cd_offset_ = 0;    // entry data ends before this offset
};

// Writes an archive to a file (path constructor) or to a string (default constructor, then
// str()). finalize() writes the central directory; the destructor calls it if the caller did not
// (swallowing errors, as a destructor must: call it yourself to see them).
// Thread safety: none; one writer per thread.
class ZipWriter {
 public:
  static constexpr std::size_t kAlignment = 64;  // PyTorchStreamWriter's kFieldAlignment

  ZipWriter() = default;
  explicit ZipWriter(const std::string& path) : to_file_(true) {
    file_.open(path, std::ios::binary | std::ios::trunc);
    TP_CHECK(file_.good(), "open file failed because of errno: cannot open ", path, " for writing");
  }
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;
  ~ZipWriter() {
    try {
      finalize();
    } catch (...) {  // NOLINT(bugprone-empty-catch): see the class comment
    }
  }

  // For tests: write zip64 structures even where 32-bit fields would do.
  void set_force_zip64(bool on) noexcept { force_zip64_ = on; }

  void write_record(std::string_view name, const void* data, std::size_t size,
                    bool compress = false) {
    using namespace detail;
    TP_CHECK(!finalized_, "ZipWriter: write_record after finalize");
    TP_CHECK(name.size() <= 0xFFFF, "ZipWriter: entry name too long");
    TP_CHECK(!names_.contains(std::string(name)), "ZipWriter: duplicate record ",
             std::string(name));
    Entry e;
    e.name = std::string(name);
    e.crc = crc32_of(data, size);
    e.usize = size;
    e.offset = offset_;
    std::string payload;
    const char* bytes = static_cast<const char*>(data);
    if (compress) {
      payload = deflate_bytes(e.name, data, size);
      e.method = 8;
      e.csize = payload.size();
      bytes = payload.data();
    } else {
      e.csize = size;
    }
    names_.emplace(e.name, 0);  // only once nothing can fail: a refused record may be retried
    const bool z64 = force_zip64_ || e.usize >= kU32Max || e.csize >= kU32Max;
    std::string h;
    put_le(h, kLocalHeaderSig, 4);
    put_le(h, z64 ? 45 : 20, 2);  // version needed
    put_le(h, 0, 2);              // flags
    put_le(h, e.method, 2);
    put_le(h, 0, 2);     // time 00:00:00
    put_le(h, 0x21, 2);  // date 1980-01-01
    put_le(h, e.crc, 4);
    put_le(h, z64 ? kU32Max : e.csize, 4);
    put_le(h, z64 ? kU32Max : e.usize, 4);
    put_le(h, name.size(), 2);
    std::string extra;
    if (z64) {
      put_le(extra, 1, 2);
      put_le(extra, 16, 2);
      put_le(extra, e.usize, 8);
      put_le(extra, e.csize, 8);
    }
    if (!compress) {
      // The "FB" field pads the header so that the data starts on a 64-byte boundary.
      const uint64_t start = offset_ + kLocalHeaderSize + name.size() + extra.size() + 4;
      const uint64_t pad = (kAlignment - start % kAlignment) % kAlignment;
      put_le(extra, 0x4246, 2);  // 'F' 'B'
      put_le(extra, pad, 2);
      extra.append(static_cast<std::size_t>(pad), 'Z');
    }
    put_le(h, extra.size(), 2);
    h.append(name);
    h.append(extra);
    emit(h.data(), h.size());
    emit(bytes, static_cast<std::size_t>(e.csize));
    entries_.push_back(std::move(e));
  }
  void write_record(std::string_view name, std::string_view data, bool compress = false) {
    write_record(name, data.data(), data.size(), compress);
  }

  void finalize() {
    using namespace detail;
    if (finalized_) return;
    finalized_ = true;
    const uint64_t cd_offset = offset_;
    for (const Entry& e : entries_) {
      const bool sizes64 = force_zip64_ || e.usize >= kU32Max || e.csize >= kU32Max;
      const bool offset64 = force_zip64_ || e.offset >= kU32Max;
      std::string extra;
      if (sizes64 || offset64) {
        put_le(extra, 1, 2);
        put_le(extra, (sizes64 ? 16 : 0) + (offset64 ? 8 : 0), 2);
        if (sizes64) {
          put_le(extra, e.usize, 8);
          put_le(extra, e.csize, 8);
        }
        if (offset64) put_le(extra, e.offset, 8);
      }
      std::string c;
      put_le(c, kCentralSig, 4);
      put_le(c, extra.empty() ? 20 : 45, 2);  // version made by
      put_le(c, extra.empty() ? 20 : 45, 2);  // version needed
      put_le(c, 0, 2);
      put_le(c, e.method, 2);
      put_le(c, 0, 2);
      put_le(c, 0x21, 2);
      put_le(c, e.crc, 4);
      put_le(c, sizes64 ? kU32Max : e.csize, 4);
      put_le(c, sizes64 ? kU32Max : e.usize, 4);
      put_le(c, e.name.size(), 2);
      put_le(c, extra.size(), 2);
      put_le(c, 0, 2);  // comment
      put_le(c, 0, 2);  // disk
      put_le(c, 0, 2);  // internal attributes
      put_le(c, 0, 4);  // external attributes
      put_le(c, offset64 ? kU32Max : e.offset, 4);
      c.append(e.name);
      c.append(extra);
      emit(c.data(), c.size());
    }
    const uint64_t cd_size = offset_ - cd_offset;
    const uint64_t n = entries_.size();
    const bool z64 = force_zip64_ || n >= 0xFFFF || cd_offset >= kU32Max || cd_size >= kU32Max;
    std::string t;
    if (z64) {
      const uint64_t z64_offset = offset_;
      put_le(t, kZip64EndSig, 4);
      put_le(t, kZip64EndSize - 12, 8);
      put_le(t, 45, 2);
      put_le(t, 45, 2);
      put_le(t, 0, 4);
      put_le(t, 0, 4);
      put_le(t, n, 8);
      put_le(t, n, 8);
      put_le(t, cd_size, 8);
      put_le(t, cd_offset, 8);
      put_le(t, kZip64LocatorSig, 4);
      put_le(t, 0, 4);
      put_le(t, z64_offset, 8);
      put_le(t, 1, 4);
    }
    put_le(t, kEndSig, 4);
    put_le(t, 0, 2);
    put_le(t, 0, 2);
    put_le(t, z64 ? 0xFFFF : n, 2);
    put_le(t, z64 ? 0xFFFF : n, 2);
    put_le(t, z64 ? kU32Max : cd_size, 4);
    put_le(t, z64 ? kU32Max : cd_offset, 4);
    put_le(t, 0, 2);
    emit(t.data(), t.size());
    if (to_file_) {
      file_.flush();
      TP_CHECK(file_.good(), "ZipWriter: writing the archive failed");
      file_.close();
    }
  }

  // The archive written so far (the whole archive after finalize()); string writers only.
  const std::string& str() const noexcept { return buffer_; }
  std::string release() noexcept { return std::move(buffer_); }

 private:
  struct Entry {
    std::string name;
    uint16_t method = 0;
    uint32_t crc = 0;
    uint64_t csize = 0, usize = 0, offset = 0;
  };

  void emit(const char* p, std::size_t n) {
    if (to_file_) {
      file_.write(p, static_cast<std::streamsize>(n));
      TP_CHECK(file_.good(), "ZipWriter: writing the archive failed");
    } else {
      buffer_.append(p, n);
    }
    offset_ += n;
  }

  static std::string deflate_bytes(const std::string& name, const void* data, std::size_t size) {
#if !TENSORPLAY_USE_ZLIB
    (void)data;
    (void)size;
    detail::no_zlib(name);
#else
    (void)name;
    z_stream zs{};
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      throw Error("zlib deflateInit2 failed");
    }
    std::string out;
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::string chunk(kChunk, '\0');
    zs.next_in = static_cast<Bytef*>(const_cast<void*>(data));
    std::size_t in_left = size;
    int rc = Z_OK;
    do {
      const uInt in_now = static_cast<uInt>(std::min<std::size_t>(in_left, uint64_t{1} << 30));
      zs.avail_in = in_now;
      const int flush = in_left == in_now ? Z_FINISH : Z_NO_FLUSH;
      do {
        zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
        zs.avail_out = static_cast<uInt>(kChunk);
        rc = ::deflate(&zs, flush);
        out.append(chunk.data(), kChunk - zs.avail_out);
      } while (zs.avail_out == 0);
      in_left -= in_now - zs.avail_in;
    } while (rc != Z_STREAM_END && rc != Z_STREAM_ERROR);
    deflateEnd(&zs);
    TP_CHECK(rc == Z_STREAM_END, "zlib deflate failed");
    return out;
#endif
  }

  std::ofstream file_;
  std::string buffer_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, int> names_;
  uint64_t offset_ = 0;
  bool to_file_ = false;
  bool finalized_ = false;
  bool force_zip64_ = false;
};

}  // namespace tensorplay::serialize
