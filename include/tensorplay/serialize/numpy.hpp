// NumPy's .npy format: tensors to and from the bytes np.save writes and np.load reads
// (numpy/lib/format.py is the reference; this is NumPy 1.24's behaviour, byte for byte).
//
// A file is the magic "\x93NUMPY", a major and a minor version byte, the header length (2 bytes
// little-endian in version 1.0, 4 in 2.0 and 3.0), then the header: a Python dict literal
// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with spaces and a final
// '\n' so that the data starts at a multiple of 64 bytes, then numel * itemsize bytes of data in
// C order, or in Fortran order when fortran_order is True.
//
// Reading is strict, because the header is untrusted input that NumPy itself parses with
// ast.literal_eval: a small recursive-descent parser accepts exactly the literal forms NumPy's
// writers produce (quotes of either kind, `(3,)` tuples, `True`/`False`, any Python whitespace,
// trailing commas, Python 2's `3L` ints in 1.0 and 2.0 files), exactly the three keys once each,
// and the numeric descrs TensorPlay has a dtype for; every size is overflow-checked before a byte
// is allocated. Every refusal is a typed exception with NumPy's wording where NumPy has one:
// ValueError for malformed or truncated files, TypeError for a dtype TensorPlay cannot hold.
// Bytes past the end of the data are ignored, as np.load ignores them.
//
// Writing gives np.save's bytes: the oldest version the header fits (1.0, else 2.0), the
// growth-axis spaces NumPy 1.24 reserves in the header, little-endian data, fortran_order True
// for a tensor that is Fortran-contiguous but not C-contiguous (as NumPy decides for an array)
// and C order for everything else. save(path) writes `path` as given; np.save would append
// ".npy" to a name without it.
//
// An .npz archive is a zip of .npy members: load_bytes / save_bytes are the per-member entry.
// Not in the umbrella header (opt-in, like libtorch's torch/serialize.h).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy_kernel.hpp>

namespace tensorplay {
namespace numpy {

// What an .npy header says, validated: read_header's result.
struct NpyHeader {
  uint8_t major = 1;
  uint8_t minor = 0;
  DType dtype = DType::Float32;
  bool swap_bytes = false;  // the data's byte order is not the host's (multi-byte dtypes only)
  bool fortran_order = false;
  std::vector<int64_t> shape;
  std::size_t data_offset = 0;  // where the data starts, from the first byte of the file
  std::size_t nbytes = 0;       // numel * itemsize, overflow-checked
};

}  // namespace numpy

namespace detail {

inline constexpr std::string_view kNpyMagic = "\x93NUMPY";
inline constexpr std::size_t kNpyMagicLen = 8;  // the prefix and the two version bytes
inline constexpr std::size_t kNpyArrayAlign = 64;
// format.py's GROWTH_AXIS_MAX_DIGITS: the header reserves room for the growth axis to reach 21
// digits, so that a writer appending rows can rewrite the header in place.
inline constexpr std::size_t kNpyGrowthAxisMaxDigits = 21;

// Python's repr of a bytes object, which is how NumPy shows a bad magic string or header (long
// ones cut, so that a hostile megabyte header does not become a megabyte message).
inline std::string npy_bytes_repr(std::string_view s, std::size_t max_chars = 200) {
  std::string out = "b'";
  const std::size_t n = std::min(s.size(), max_chars);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  out += '\'';
  if (s.size() > n) out += "...";
  return out;
}

// The numeric descrs: kind and size after the byte-order mark.
inline bool npy_dtype_from_typestr(std::string_view code, DType* out) {
  static constexpr std::pair<std::string_view, DType> kCodes[] = {
      {"b1", DType::Bool},    {"u1", DType::UInt8},   {"i1", DType::Int8},
      {"i2", DType::Int16},   {"i4", DType::Int32},   {"i8", DType::Int64},
      {"f2", DType::Float16}, {"f4", DType::Float32}, {"f8", DType::Float64}};
  for (const auto& [name, dtype] : kCodes) {
    if (code == name) {
      *out = dtype;
      return true;
    }
  }
  return false;
}

// descr string -> dtype and byte order. '<' little, '>' big, '|' (not applicable) and '='
// native; a one-byte type never swaps whatever its mark says.
inline void npy_parse_descr(std::string_view descr, numpy::NpyHeader* h) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    order = code[0];
    code.remove_prefix(1);
  }
  if (code == "u2" || code == "u4" || code == "u8") {
    TP_CHECK_TYPE(false, "descr '", descr, "' (uint",
                  code == "u2"   ? 16
                  : code == "u4" ? 32
                                 : 64,
                  ") is not supported: tensorplay has no uint",
                  code == "u2"   ? 16
                  : code == "u4" ? 32
                                 : 64,
                  " dtype");
  }
  DType dtype{};
  TP_CHECK_TYPE(npy_dtype_from_typestr(code, &dtype), "descr ", npy_bytes_repr(descr).substr(1),
                " is not supported: tensorplay loads only the descrs |b1 |u1 |i1 <i2 <i4 <i8 <f2 "
                "<f4 <f8 (and their '>' big-endian forms)");
  h->dtype = dtype;
  const bool big = order == '>' || (order != '<' && std::endian::native == std::endian::big);
  h->swap_bytes = itemsize(dtype) > 1 && big != (std::endian::native == std::endian::big);
}

// A strict parser of the header's dict literal: Python's literal syntax for the forms NumPy
// writes, nothing evaluated. Each refusal names the header (cut) and the offset.
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, bool allow_long_suffix)
      : s_(text), allow_long_(allow_long_suffix) {}

  void parse(numpy::NpyHeader* h) {
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip_ws();
    expect('{');
    skip_ws();
    while (peek() != '}') {
      if (at_end()) fail("unterminated dictionary");
      const std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        TP_CHECK_VALUE(!seen_descr, "Header has a duplicate key: 'descr'");
        seen_descr = true;
        parse_descr(h);
      } else if (key == "fortran_order") {
        TP_CHECK_VALUE(!seen_fortran, "Header has a duplicate key: 'fortran_order'");
        seen_fortran = true;
        h->fortran_order = parse_bool();
      } else if (key == "shape") {
        TP_CHECK_VALUE(!seen_shape, "Header has a duplicate key: 'shape'");
        seen_shape = true;
        parse_shape(&h->shape);
      } else {
        TP_CHECK_VALUE(false, "Header does not contain the correct keys: unexpected key ",
                       npy_bytes_repr(key).substr(1),
                       " (expected exactly 'descr', "
                       "'fortran_order' and 'shape')");
      }
      skip_ws();
      if (at_end()) fail("unterminated dictionary");
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != '}') {
        fail("expected ',' or '}'");
      }
    }
    ++pos_;
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the dictionary");
    if (!(seen_descr && seen_fortran && seen_shape)) {
      std::string keys = "[";
      for (auto [seen, name] :
           {std::pair{seen_descr, "'descr'"}, std::pair{seen_fortran, "'fortran_order'"},
            std::pair{seen_shape, "'shape'"}}) {
        if (!seen) continue;
        if (keys.size() > 1) keys += ", ";
        keys += name;
      }
      keys += "]";
      TP_CHECK_VALUE(false, "Header does not contain the correct keys: ", keys,
                     " (expected exactly 'descr', 'fortran_order' and 'shape')");
    }
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    TP_CHECK_VALUE(false, "Cannot parse header: ", npy_bytes_repr(s_), ": ", what, " at offset ",
                   static_cast<long long>(pos_));
    __builtin_unreachable();
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= s_.size(); }
  void expect(char c) {
    if (at_end() || s_[pos_] != c) {
      const char msg[] = {'e', 'x', 'p', 'e', 'c', 't', 'e', 'd', ' ', '\'', c, '\'', '\0'};
      fail(msg);
    }
    ++pos_;
  }
  // Python's whitespace between tokens; newlines are free inside brackets.
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                         s_[pos_] == '\r' || s_[pos_] == '\f')) {
      ++pos_;
    }
  }
  static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
  }

  // A plain string literal in either quote; escapes and prefixes are not in NumPy's headers.
  std::string parse_string() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a string");
    const std::size_t start = ++pos_;
    while (!at_end() && s_[pos_] != q) {
      if (s_[pos_] == '\\' || s_[pos_] == '\n' || s_[pos_] == '\r') {
        fail("unsupported character in a string");
      }
      ++pos_;
    }
    if (at_end()) fail("unterminated string");
    std::string out(s_.substr(start, pos_ - start));
    ++pos_;
    return out;
  }

  void parse_descr(numpy::NpyHeader* h) {
    const char c = peek();
    if (c == '[' || c == '(') {
      TP_CHECK_TYPE(false, "descr ", npy_bytes_repr(s_.substr(pos_), 60).substr(1),
                    " is a structured or subarray dtype: tensorplay loads only plain numeric "
                    "arrays");
    }
    if (c != '\'' && c != '"') fail("descr is not a string");
    npy_parse_descr(parse_string(), h);
  }

  bool parse_bool() {
    const std::size_t start = pos_;
    while (!at_end() && is_ident_char(s_[pos_])) ++pos_;
    const std::string_view word = s_.substr(start, pos_ - start);
    if (word == "True") return true;
    if (word == "False") return false;
    pos_ = start;
    TP_CHECK_VALUE(false, "fortran_order is not a valid bool: ",
                   npy_bytes_repr(s_.substr(start, 40)).substr(1));
    __builtin_unreachable();
  }

  // A Python int literal, optionally signed: decimal digits without leading zeros (Python 3
  // refuses `03`), then `L` in a Python 2 file. Values past int64 are refused here.
  int64_t parse_int() {
    bool negative = false;
    if (peek() == '-' || peek() == '+') {
      negative = peek() == '-';
      ++pos_;
      skip_ws();
    }
    const std::size_t start = pos_;
    uint64_t value = 0;
    bool overflow = false;
    while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      overflow |= mul_overflows(value, 10u, &value);
      overflow |= add_overflows(value, static_cast<unsigned>(s_[pos_] - '0'), &value);
      ++pos_;
    }
    if (pos_ == start) fail("shape is not valid: expected an integer");
    if (s_[start] == '0' && pos_ - start > 1 &&
        s_.substr(start, pos_ - start).find_first_not_of('0') != std::string_view::npos) {
      fail("leading zeros in an integer");
    }
    if (allow_long_ && peek() == 'L') ++pos_;
    if (!at_end() && is_ident_char(s_[pos_])) fail("invalid integer literal");
    TP_CHECK_VALUE(!overflow && value <= kStorageMax, "shape is not valid: the dimension ",
                   negative ? "-" : "", std::string(s_.substr(start, pos_ - start)),
                   " does not fit in int64");
    TP_CHECK_VALUE(!negative || value == 0,
                   "negative dimensions are not allowed (shape "
                   "dimension -",
                   std::string(s_.substr(start, pos_ - start)), ")");
    return static_cast<int64_t>(value);
  }

  // `()`, `(3,)`, `(2, 3)`, `(2, 3,)`. `(3)` is an int in Python, not a tuple.
  void parse_shape(std::vector<int64_t>* shape) {
    if (peek() != '(') {
      TP_CHECK_VALUE(false, "shape is not valid: ", npy_bytes_repr(s_.substr(pos_, 40)).substr(1),
                     " (expected a tuple of ints)");
    }
    ++pos_;
    skip_ws();
    shape->clear();
    bool trailing_comma = false;
    while (peek() != ')') {
      if (at_end()) fail("unterminated shape tuple");
      shape->push_back(parse_int());
      skip_ws();
      if (at_end()) fail("unterminated shape tuple");
      trailing_comma = false;
      if (peek() == ',') {
        ++pos_;
        skip_ws();
        trailing_comma = true;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in the shape tuple");
      }
    }
    TP_CHECK_VALUE(shape->size() != 1 || trailing_comma, "shape is not valid: ", (*shape)[0],
                   " (a one-element tuple needs a trailing comma, as in (", (*shape)[0], ",))");
    ++pos_;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  bool allow_long_;
};

inline std::string npy_shape_repr(IntArrayRef shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ',';
  out += ')';
  return out;
}

// NumPy's flags.c_contiguous / f_contiguous (relaxed strides: dims of size 1 never count, and
// an empty array is both): the elements are the numel items from data_ptr, in that order.
inline bool npy_is_contiguous(IntArrayRef sizes, IntArrayRef strides, bool fortran) {
  for (int64_t s : sizes) {
    if (s == 0) return true;
  }
  int64_t expected = 1;
  const std::size_t n = sizes.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = fortran ? k : n - 1 - k;
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

inline void npy_swap_bytes(char* data, std::size_t nbytes, std::size_t width) {
  for (std::size_t off = 0; off + width <= nbytes; off += width) {
    std::reverse(data + off, data + off + width);
  }
}

// Copies a CPU tensor's elements to `out` in C order, `width` bytes each, whatever its strides.
inline void npy_gather_c_order(const Tensor& t, char* out) {
  const IntArrayRef sizes = t.sizes();
  const IntArrayRef strides = t.strides();
  const std::size_t width = itemsize(t.dtype());
  const std::size_t ndim = sizes.size();
  const int64_t numel = t.numel();
  const char* base = static_cast<const char*>(t.data_ptr());
  std::vector<int64_t> index(ndim, 0);
  int64_t offset = 0;  // in elements, from base
  for (int64_t n = 0; n < numel; ++n) {
    std::memcpy(out, base + offset * static_cast<int64_t>(width), width);
    out += width;
    for (std::size_t d = ndim; d-- > 0;) {  // the odometer: last dim fastest
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

inline std::string npy_read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  TP_CHECK(f != nullptr, "numpy.load: cannot open '", path, "': ", std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  TP_CHECK(!failed, "numpy.load: error reading '", path, "'");
  return out;
}

// Writes `bytes` to exactly `path`; `op` names the caller in errors.
inline void npy_write_file(const std::string& path, const std::string& bytes, const char* op) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  TP_CHECK(f != nullptr, op, ": cannot open '", path, "' for writing: ", std::strerror(errno));
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  TP_CHECK(wrote && closed, op, ": error writing '", path, "'");
}

}  // namespace detail

namespace numpy {

// The descr np.save writes for `dtype` ('<f4', '|b1', ...). BFloat16 has no NumPy dtype: the
// TypeError is torch's for bfloat16_tensor.numpy().
inline std::string descr(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::UInt8: return "|u1";
    case DType::Int8: return "|i1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Float16: return "<f2";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    default: break;
  }
  TP_CHECK_TYPE(false, "Got unsupported ScalarType ", scalar_type_name(dtype));
  __builtin_unreachable();
}

// Parses and validates the magic, version, header length and header of an .npy file held in
// `bytes` (at least its first data_offset bytes). Does not look at the data.
inline NpyHeader read_header(std::string_view bytes) {
  using detail::npy_bytes_repr;
  NpyHeader h;
  TP_CHECK_VALUE(bytes.size() >= detail::kNpyMagicLen, "EOF: reading magic string, expected ",
                 detail::kNpyMagicLen, " bytes got ", bytes.size());
  TP_CHECK_VALUE(bytes.substr(0, 6) == detail::kNpyMagic,
                 "the magic string is not correct; expected b'\\x93NUMPY', got ",
                 npy_bytes_repr(bytes.substr(0, 6)));
  h.major = static_cast<uint8_t>(bytes[6]);
  h.minor = static_cast<uint8_t>(bytes[7]);
  TP_CHECK_VALUE((h.major == 1 || h.major == 2 || h.major == 3) && h.minor == 0,
                 "we only support format version (1,0), (2,0), and (3,0), not (",
                 static_cast<int>(h.major), ", ", static_cast<int>(h.minor), ")");
  const std::size_t len_bytes = h.major == 1 ? 2 : 4;
  const std::size_t avail = bytes.size() - detail::kNpyMagicLen;
  TP_CHECK_VALUE(avail >= len_bytes, "EOF: reading array header length, expected ", len_bytes,
                 " bytes got ", avail);
  std::size_t header_len = 0;
  for (std::size_t i = len_bytes; i-- > 0;) {  // little-endian
    header_len = header_len << 8 | static_cast<unsigned char>(bytes[detail::kNpyMagicLen + i]);
  }
  const std::size_t prefix = detail::kNpyMagicLen + len_bytes;
  TP_CHECK_VALUE(bytes.size() - prefix >= header_len, "EOF: reading array header, expected ",
                 header_len, " bytes got ", bytes.size() - prefix);
  // Latin-1 in 1.0 and 2.0, UTF-8 in 3.0: the same bytes for every character the grammar
  // accepts outside a string, and a non-ASCII descr is refused by name either way.
  detail::NpyHeaderParser(bytes.substr(prefix, header_len), /*allow_long_suffix=*/h.major < 3)
      .parse(&h);
  h.data_offset = prefix + header_len;

  // numel * itemsize with NumPy's refusal. The bound is on the product of max(size, 1), the
  // extent of the largest stride: an empty array's strides must fit in int64 too (and this is
  // stricter than c10's sticky numel rule, so make_tensor never refuses what passes here).
  uint64_t extent = 1;
  bool overflow = false;
  for (int64_t s : h.shape) {
    overflow |=
        detail::mul_overflows(extent, static_cast<uint64_t>(std::max<int64_t>(s, 1)), &extent);
  }
  overflow |= detail::mul_overflows(extent, itemsize(h.dtype), &extent);
  TP_CHECK_VALUE(!overflow && extent <= detail::kStorageMax,
                 "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                 "possible size (shape ",
                 detail::npy_shape_repr(h.shape), ")");
  uint64_t n = 0;
  detail::safe_multiplies_u64(h.shape, &n);  // <= extent: no overflow
  h.nbytes = static_cast<std::size_t>(n * itemsize(h.dtype));
  return h;
}

// The magic, version, length and padded header np.save writes before the data of an array of
// `dtype` and `shape`: version 1.0 unless the header is longer than 65535 bytes, then 2.0.
inline std::string header_bytes(DType dtype, IntArrayRef shape, bool fortran_order) {
  std::string dict = "{'descr': '" + descr(dtype) +
                     "', 'fortran_order': " + (fortran_order ? "True" : "False") +
                     ", 'shape': " + detail::npy_shape_repr(shape) + ", }";
  if (!shape.empty()) {
    const std::size_t digits = std::to_string(shape[fortran_order ? shape.size() - 1 : 0]).size();
    if (digits < detail::kNpyGrowthAxisMaxDigits) {
      dict.append(detail::kNpyGrowthAxisMaxDigits - digits, ' ');
    }
  }
  const std::size_t hlen = dict.size() + 1;  // with the final '\n'
  uint8_t major = 1;
  std::size_t len_bytes = 2;
  // format.py's padding: a full 64 bytes (not 0) when the header already ends on a boundary.
  std::size_t pad = detail::kNpyArrayAlign - (detail::kNpyMagicLen + 2 + hlen) % 64;
  if (hlen + pad > 0xffff) {
    major = 2;
    len_bytes = 4;
    pad = detail::kNpyArrayAlign - (detail::kNpyMagicLen + 4 + hlen) % 64;
    TP_CHECK_VALUE(hlen + pad <= 0xffffffffu, "Header length ", hlen,
                   " too big for version=(2, 0)");
  }
  std::string out(detail::kNpyMagic);
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t total = hlen + pad;
  for (std::size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  return out;
}

// np.save's bytes for `t`. A tensor on another device is copied to the CPU first.
template <class = void>
std::string save_bytes(const Tensor& tensor) {
  TP_CHECK(tensor.defined(), "numpy.save: cannot save an undefined tensor");
  const std::string dtype_descr = descr(tensor.dtype());  // BFloat16 refused before any copy
  Tensor t = tensor;
  if (!t.is_cpu()) {
    t = detail::copy_to_new(tensor, TensorOptions().dtype(tensor.dtype()).device(kCPU),
                            MemoryFormat::Preserve, /*non_blocking=*/false);
  }
  const IntArrayRef sizes = t.sizes();
  const IntArrayRef strides = t.strides();
  const bool c_contig = detail::npy_is_contiguous(sizes, strides, /*fortran=*/false);
  const bool fortran = !c_contig && detail::npy_is_contiguous(sizes, strides, /*fortran=*/true);
  std::string out = header_bytes(t.dtype(), sizes, fortran);
  const std::size_t width = itemsize(t.dtype());
  const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * width;
  const std::size_t data_offset = out.size();
  out.resize(data_offset + nbytes);
  if (nbytes == 0) return out;
  if (c_contig || fortran) {
    std::memcpy(out.data() + data_offset, t.data_ptr(), nbytes);
  } else {
    detail::npy_gather_c_order(t, out.data() + data_offset);
  }
  if constexpr (std::endian::native == std::endian::big) {
    if (width > 1) detail::npy_swap_bytes(out.data() + data_offset, nbytes, width);
  }
  return out;
}

// np.save(path, t), to exactly `path` (no ".npy" appended).
template <class = void>
void save(const std::string& path, const Tensor& tensor) {
  detail::npy_write_file(path, save_bytes(tensor), "numpy.save");
}

// np.load of one .npy held in memory, copied into a new CPU tensor: C strides, or Fortran
// strides (column-major, as torch.from_numpy gives) when fortran_order is True. Big-endian
// data is swapped to the host's order, and bool bytes other than 0 and 1 read as true.
template <class = void>
Tensor load_bytes(std::string_view bytes) {
  const NpyHeader h = read_header(bytes);
  const std::size_t avail = bytes.size() - h.data_offset;
  TP_CHECK_VALUE(avail >= h.nbytes, "EOF: reading array data, expected ", h.nbytes, " bytes got ",
                 avail);
  std::vector<int64_t> strides(h.shape.size());
  int64_t running = 1;  // max(size, 1) as NumPy's and c10's stride rules (read_header bounds it)
  for (std::size_t k = 0; k < h.shape.size(); ++k) {
    const std::size_t i = h.fortran_order ? k : h.shape.size() - 1 - k;
    strides[i] = running;
    running *= std::max<int64_t>(h.shape[i], 1);
  }
  Tensor out = empty_strided<>(h.shape, strides, TensorOptions().dtype(h.dtype));
  if (h.nbytes == 0) return out;
  char* data = static_cast<char*>(out.data_ptr());
  std::memcpy(data, bytes.data() + h.data_offset, h.nbytes);
  if (h.swap_bytes) detail::npy_swap_bytes(data, h.nbytes, itemsize(h.dtype));
  if (h.dtype == DType::Bool) {
    // A bool object holding another byte is undefined behaviour in C++; NumPy reads it as True.
    for (std::size_t i = 0; i < h.nbytes; ++i) data[i] = data[i] != 0 ? 1 : 0;
  }
  return out;
}

// np.load(path) of an .npy file: the whole file is read, then load_bytes.
template <class = void>
Tensor load(const std::string& path) {
  return load_bytes(detail::npy_read_file(path));
}

}  // namespace numpy
}  // namespace tensorplay
