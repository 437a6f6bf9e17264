// Printing: `std::cout << t`, `t.toString()` and `tensorplay::to_string(t)` produce exactly what
// Python's `repr(t)` prints in PyTorch 1.13 (torch/_tensor_str.py), with `tensorplay.` where
// PyTorch writes `torch.` (`dtype=tensorplay.float64`). libtorch's own C++ printer uses another
// format (and its Tensor::toString() names the type, "CPUFloatType"); we follow Python because
// that is the format users read, paste into issues and compare against.
//
// The rules, in the order the printer applies them:
//  - Summarisation: when numel > threshold, every dimension longer than 2 * edgeitems shows its
//    first and last `edgeitems` entries around an ellipsis. Only the shown elements feed the
//    formatter, so hidden outliers do not widen the columns.
//  - One Formatter for the whole tensor: one width for every element. For floats it looks only
//    at the nonzero finite values: if all are integral it uses "int mode" (`3.`), else fixed mode
//    with `precision` digits; scientific mode replaces either when max/min > 1000 or max > 1e8
//    (or, not in int mode, min < 1e-4). sci_mode in the options overrides the choice but not the
//    width, which was measured in the chosen mode (PyTorch does the same: a forced mode pads
//    strings of another length). With no nonzero finite value at all nothing is measured and
//    even the sci_mode override is skipped (`tensor([0., 0.])` stays in int mode).
//  - Layout: the last dimension wraps at linewidth; rows of higher dimensions are separated by
//    dim - 1 newlines and indented one column per nesting level.
//  - Suffixes: device= off the CPU, size= for an empty tensor that is not 1-d, dtype= when the
//    values would not imply it (anything but float32, int64 and bool; for an empty tensor
//    anything but float32), wrapped onto a new line when they would overflow linewidth.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/tensor_options.hpp>
#include <tensorplay/ops/as_strided.hpp>  // detach(), and cpu() (through copy.hpp): device tensors
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/print_options.hpp>
#include <tensorplay/ops/quantized.hpp>

namespace tensorplay {

// The printer's internals, in their own namespace: their names are generic.
namespace detail::printer {

// Appends v in printf's %.*f or %.*e form. std::to_chars with a precision is exact (it rounds
// the binary value correctly, ties to even), as Python's float formatting and glibc's printf
// are, so the digits are Python's, and it is faster than snprintf. Callers
// handle NaN, whose sign Python never prints.
inline void append_double(std::string& out, double v, std::chars_format fmt, int precision) {
  char buf[128];
  auto r = std::to_chars(buf, buf + sizeof buf, v, fmt, precision);
  if (r.ec == std::errc()) {
    out.append(buf, r.ptr);
    return;
  }
  // Longer than the buffer: huge values in fixed mode, or a large precision.
  std::string big(static_cast<std::size_t>(precision) + 400, '\0');
  r = std::to_chars(big.data(), big.data() + big.size(), v, fmt, precision);
  out.append(big.data(), r.ptr);
}

// How one dimension is shown: entries [0, head_end), then, if `ellipsis`, "..." and entries
// [tail_begin, tail_end).
struct DimPlan {
  int64_t head_end;
  int64_t tail_begin;
  int64_t tail_end;
  bool ellipsis;
};

// PyTorch's get_summarized_data (which feeds the formatter) and _tensor_str_with_formatter
// (which lays the text out) show the same entries, chosen by each dimension's length alone, so
// the shown elements are the Cartesian product of one plan per dimension.
inline std::vector<DimPlan> plan_dims(IntArrayRef sizes, bool summarize, int64_t edgeitems) {
  // With edgeitems = 0, PyTorch stacks an empty list of rows for any summarised tensor of two or
  // more dimensions, which fails; we fail the same way rather than invent a layout.
  TP_CHECK(!(summarize && edgeitems == 0 && sizes.size() >= 2),
           "stack expects a non-empty TensorList");
  std::vector<DimPlan> plans;
  plans.reserve(sizes.size());
  for (int64_t size : sizes) {
    if (summarize && size - edgeitems > edgeitems) {  // size > 2 * edgeitems, without overflow
      // The tail is PyTorch's self[-edgeitems:], and -0 is 0: with edgeitems = 0 a summarised
      // vector prints "..." followed by every element. Kept for fidelity.
      plans.push_back({edgeitems, edgeitems == 0 ? 0 : size - edgeitems, size, true});
    } else {
      plans.push_back({size, size, size, false});
    }
  }
  return plans;
}

// Offsets (in elements, from data_ptr()) of the shown elements in print order. Strides are
// followed as they are, so any view prints without a contiguous copy.
inline void collect_offsets(IntArrayRef strides, const std::vector<DimPlan>& plans, std::size_t d,
                            int64_t base, std::vector<int64_t>& out) {
  if (d == plans.size()) {
    out.push_back(base);
    return;
  }
  const DimPlan& p = plans[d];
  for (int64_t i = 0; i < p.head_end; ++i) {
    collect_offsets(strides, plans, d + 1, base + i * strides[d], out);
  }
  for (int64_t i = p.tail_begin; i < p.tail_end; ++i) {
    collect_offsets(strides, plans, d + 1, base + i * strides[d], out);
  }
}

// PyTorch's _Formatter: how every element is written, decided once from the shown elements.
// Its state is PyTorch's: int_mode and sci_mode are separate flags, so forcing sci_mode off
// falls back to whichever of int and fixed mode the values called for.
struct Formatter {
  bool is_bool = false;
  bool int_mode = true;
  bool sci_mode = false;
  int precision = 4;

  // Python's str() of an integer or bool.
  void write(std::string& out, int64_t v) const {
    if (is_bool) {
      out += v ? "True" : "False";
      return;
    }
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  }

  void write(std::string& out, double v) const {
    if (std::isnan(v)) {
      out += "nan";  // Python never prints a sign on NaN
    } else if (sci_mode) {
      append_double(out, v, std::chars_format::scientific, precision);
    } else if (int_mode) {
      append_double(out, v, std::chars_format::fixed, 0);
      if (!std::isinf(v)) out += '.';  // marks the tensor as floating
    } else {
      append_double(out, v, std::chars_format::fixed, precision);
    }
  }
};

// Formats the shown values into `cells` (unpadded) and returns the common width. For floats
// (float16 and bfloat16 widened exactly, as PyTorch widens them to float32 before taking its
// statistics in double, as ours are) only nonzero finite values decide the mode and the width.
inline std::size_t format_cells(const std::vector<double>& values, const PrintOptions& o,
                                std::vector<std::string>& cells) {
  Formatter f;
  f.precision = static_cast<int>(o.precision);
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v) || v == 0) continue;
    any = true;
    lo = std::min(lo, std::fabs(v));
    hi = std::max(hi, std::fabs(v));
    if (v != std::ceil(v)) f.int_mode = false;
  }
  // With no nonzero finite value PyTorch measures nothing (width 1, int mode) and returns before
  // applying the sci_mode option, so even a forced scientific mode does not apply.
  if (any) {
    // Integral values cannot be below 1, so int mode skips the small-value test.
    f.sci_mode = hi / lo > 1000.0 || hi > 1.0e8 || (!f.int_mode && lo < 1.0e-4);
  }
  std::size_t width = 1;
  for (std::size_t i = 0; i < values.size(); ++i) {
    f.write(cells[i], values[i]);
    if (std::isfinite(values[i]) && values[i] != 0) width = std::max(width, cells[i].size());
  }
  // The width stays the one measured in the chosen mode when the option overrides the mode (as
  // in PyTorch, which then pads strings of another length); the cells are rewritten.
  if (any && o.sci_mode && *o.sci_mode != f.sci_mode) {
    f.sci_mode = *o.sci_mode;
    for (std::size_t i = 0; i < values.size(); ++i) {
      cells[i].clear();
      f.write(cells[i], values[i]);
    }
  }
  return width;
}

inline std::size_t format_cells(const std::vector<int64_t>& values, bool is_bool,
                                std::vector<std::string>& cells) {
  Formatter f;
  f.is_bool = is_bool;
  std::size_t width = 1;
  for (std::size_t i = 0; i < values.size(); ++i) {
    f.write(cells[i], values[i]);
    width = std::max(width, cells[i].size());
  }
  return width;
}

// Writes the nested brackets (PyTorch's _tensor_str_with_formatter and _vector_str) from the
// already formatted cells, consumed in print order and right-aligned to the common width
// (longer ones are not cut).
class TensorLayout {
 public:
  TensorLayout(const std::vector<DimPlan>& plans, const std::vector<std::string>& cells,
               std::size_t cell_width, int64_t linewidth)
      : plans_(plans), cells_(cells), cell_width_(cell_width), linewidth_(linewidth) {}

  void write(std::string& out, std::size_t d, int64_t indent) {
    if (plans_.empty()) {  // 0-d
      cell(out);
      return;
    }
    const DimPlan& p = plans_[d];
    out += '[';
    if (d + 1 == plans_.size()) {
      // The last dimension wraps: as many "cell, " as fit in the line after the indent, at
      // least one. " ..." counts as an element of its own and is not padded.
      const int64_t element_length = static_cast<int64_t>(cell_width_) + 2;
      const int64_t per_line = std::max<int64_t>(1, floor_div(linewidth_ - indent, element_length));
      int64_t count = 0;  // elements written so far, " ..." included
      const auto separate = [&] {
        if (count == 0) {
        } else if (count % per_line == 0) {
          out += ",\n";
          out.append(static_cast<std::size_t>(indent + 1), ' ');
        } else {
          out += ", ";
        }
        ++count;
      };
      for (int64_t i = 0; i < p.head_end; ++i) {
        separate();
        cell(out);
      }
      if (p.ellipsis) {
        separate();
        out += " ...";
      }
      for (int64_t i = p.tail_begin; i < p.tail_end; ++i) {
        separate();
        cell(out);
      }
    } else {
      // Sub-tensors of k dimensions are separated by k - 1 newlines (k - 2 blank lines).
      std::string sep = ",";
      sep.append(plans_.size() - d - 1, '\n');
      sep.append(static_cast<std::size_t>(indent + 1), ' ');
      for (int64_t i = 0; i < p.head_end; ++i) {
        if (i > 0) out += sep;
        write(out, d + 1, indent + 1);
      }
      if (p.ellipsis) {
        if (p.head_end > 0) out += sep;
        out += "...";
      }
      for (int64_t i = p.tail_begin; i < p.tail_end; ++i) {
        out += sep;  // always preceded by the ellipsis
        write(out, d + 1, indent + 1);
      }
    }
    out += ']';
  }

 private:
  void cell(std::string& out) {
    const std::string& c = cells_[next_++];
    if (c.size() < cell_width_) out.append(cell_width_ - c.size(), ' ');
    out += c;
  }

  // Python's math.floor of a true division.
  static int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  }

  const std::vector<DimPlan>& plans_;
  const std::vector<std::string>& cells_;
  std::size_t cell_width_;
  int64_t linewidth_;
  std::size_t next_ = 0;
};

// PyTorch's _tensor_str: the bracketed elements of a non-empty CPU tensor, `indent` columns in.
inline std::string tensor_str(const Tensor& t, int64_t indent, const PrintOptions& o) {
  const bool summarize = static_cast<double>(t.numel()) > o.threshold;
  const std::vector<DimPlan> plans = plan_dims(t.sizes(), summarize, o.edgeitems);
  std::vector<int64_t> offsets;
  collect_offsets(t.strides(), plans, 0, 0, offsets);

  std::vector<std::string> cells(offsets.size());
  std::size_t width = 1;
  dispatch_dtype(t.dtype(), [&]<class T>() {
    const T* data = static_cast<const T*>(t.data_ptr());
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> ||
                  std::is_floating_point_v<T>) {
      std::vector<double> values(offsets.size());
      for (std::size_t i = 0; i < offsets.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>) {
          values[i] = static_cast<double>(data[offsets[i]]);
        } else {
          values[i] = static_cast<double>(static_cast<float>(data[offsets[i]]));
        }
      }
      width = format_cells(values, o, cells);
    } else {
      std::vector<int64_t> values(offsets.size());
      for (std::size_t i = 0; i < offsets.size(); ++i) {
        values[i] = static_cast<int64_t>(data[offsets[i]]);
      }
      width = format_cells(values, std::is_same_v<T, bool>, cells);
    }
  });

  std::string out;
  TensorLayout(plans, cells, width, o.linewidth).write(out, 0, indent);
  return out;
}

// Python's str(tuple(shape)): "(2, 0, 3)", "(0,)".
inline std::string shape_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) s += ',';
  return s + ")";
}

// PyTorch's _add_suffixes: ", suffix" while the last line stays within linewidth, otherwise a
// new line at `indent`. Its length estimate of the last line is kept as written there (two
// more than the line when it is the first one).
inline std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes,
                                int64_t indent, bool force_newline, int64_t linewidth) {
  const std::size_t nl = s.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(s.size()) -
                          (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    const auto suffix_len = static_cast<int64_t>(suffix.size());
    if (force_newline || last_line_len + suffix_len + 2 > linewidth) {
      s += ",\n";
      s.append(static_cast<std::size_t>(indent), ' ');
      last_line_len = indent + suffix_len;
      force_newline = false;
    } else {
      s += ", ";
      last_line_len += suffix_len + 2;
    }
    s += suffix;
  }
  return s + ")";
}

// Python's repr of a float: the shortest digits that read back to v, in fixed notation for
// decimal exponents -4..15 (with ".0" when integral) and scientific otherwise ("1e-05",
// "1.5e+16").
inline std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);  // "-1.2345e-05"
  const std::size_t e = sci.find('e');
  const int exp = std::stoi(sci.substr(e + 1));
  const bool neg = sci[0] == '-';
  std::string digits;
  for (std::size_t i = neg ? 1 : 0; i < e; ++i)
    if (sci[i] != '.') digits += sci[i];
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exp + 1) {
      out += digits + std::string(static_cast<std::size_t>(exp + 1) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(exp + 1)) + "." +
             digits.substr(static_cast<std::size_t>(exp + 1));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int a = exp < 0 ? -exp : exp;
  out += exp < 0 ? "e-" : "e+";
  if (a < 10) out += '0';
  return out + std::to_string(a);
}

}  // namespace detail::printer

// repr(t) as PyTorch 1.13 prints it (see the top of this file). An undefined tensor prints as
// libtorch prints one. Templates (as operator<< and toString), so that the formatting of every
// dtype is compiled only in a file that prints.
template <class = void>
std::string to_string(const Tensor& t) {
  if (!t.defined()) return "[ Tensor (undefined) ]";
  const PrintOptions o = get_printoptions();
  const std::string prefix = "tensor(";
  const auto indent = static_cast<int64_t>(prefix.size());
  const DType default_dtype = TensorOptions().dtype();  // torch.get_default_dtype()
  std::vector<std::string> suffixes;

  // PyTorch prints the device whenever it is not the default device type (the CPU).
  if (!t.device().is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");

  std::string body;
  if (t.is_quantized()) {
    // PyTorch's quantized branch: the shape always, the dtype, the scheme and its parameters,
    // and the dequantized values.
    suffixes.push_back("size=" + detail::printer::shape_tuple(t.sizes()));
    suffixes.push_back("dtype=tensorplay." + std::string(dtype_name(t.dtype())));
    const QScheme scheme = t.qscheme();
    suffixes.push_back("quantization_scheme=tensorplay." + std::string(qscheme_name(scheme)));
    if (scheme == kPerTensorAffine) {
      suffixes.push_back("scale=" + detail::printer::python_float_repr(t.q_scale()));
      suffixes.push_back("zero_point=" + std::to_string(t.q_zero_point()));
    } else {
      suffixes.push_back("scale=" + to_string(t.q_per_channel_scales()));
      suffixes.push_back("zero_point=" + to_string(t.q_per_channel_zero_points()));
      suffixes.push_back("axis=" + std::to_string(t.q_per_channel_axis()));
    }
    const Tensor values = t.dequantize();
    body = values.numel() == 0 ? "[]" : detail::printer::tensor_str(values, indent, o);
  } else if (t.numel() == 0) {
    // NumPy's convention: the shape is shown unless it is (0,), and the dtype unless it is the
    // default float one, since there are no values to hint at it.
    if (t.dim() != 1) suffixes.push_back("size=" + detail::printer::shape_tuple(t.sizes()));
    if (t.dtype() != default_dtype) {
      suffixes.push_back("dtype=tensorplay." + std::string(dtype_name(t.dtype())));
    }
    body = "[]";
  } else {
    // int64 and bool are what Python infers from int and bool literals; float32 is the default.
    if (t.dtype() != default_dtype && t.dtype() != kLong && t.dtype() != kBool) {
      suffixes.push_back("dtype=tensorplay." + std::string(dtype_name(t.dtype())));
    }
    // A device tensor's values are read on the host, as PyTorch prints them.
    body = detail::printer::tensor_str(t.is_cpu() ? t : t.detach().cpu(), indent, o);
  }

  // Autograd's suffix, after dtype, as in PyTorch's _str_intern: "grad_fn=<Name>" for results of
  // differentiable ops, "requires_grad=True" for a leaf that requires grad. (A view whose base
  // was modified in place shows the node it had; grad_fn() would remake it.)
  const auto* meta =
      static_cast<const AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta().get());
  if (meta && meta->grad_fn_) {
    suffixes.push_back("grad_fn=<" + meta->grad_fn_->name() + ">");
  } else if (t.requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }

  return detail::printer::add_suffixes(prefix + body, suffixes, indent, /*force_newline=*/false,
                                       o.linewidth);
}

template <class>
std::string Tensor::toString() const {
  return tensorplay::to_string(*this);
}

template <class = void>
std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << to_string(t);
}

}  // namespace tensorplay
