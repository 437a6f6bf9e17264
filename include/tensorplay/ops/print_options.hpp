// torch.set_printoptions and torch.get_printoptions: the process-wide options the printer
// (ops/print.hpp) reads. Their own header, so that a file setting them need not parse the
// printer (separately compiled mode includes this one only).
#pragma once

#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>

#include <tensorplay/core/error.hpp>

namespace tensorplay {

// torch.set_printoptions' knobs with PyTorch's defaults (its "default" profile). threshold is a
// double so that the "full" profile can set it to infinity, as PyTorch does.
struct PrintOptions {
  int64_t precision = 4;    // digits after the point in fixed and scientific mode
  double threshold = 1000;  // summarise when numel() > threshold
  int64_t edgeitems = 3;    // entries shown at each end of a summarised dimension
  int64_t linewidth = 80;   // characters per line before the last dimension wraps
  std::optional<bool> sci_mode = std::nullopt;  // nullopt: chosen per tensor by the formatter

  friend bool operator==(const PrintOptions&, const PrintOptions&) = default;
};

namespace detail {

// The options are one process-wide setting, as PyTorch's PRINT_OPTS is one module global.
// Thread safety: `mutex` guards `options` (PyTorch's GIL); a print works on a snapshot.
struct PrintOptionsState {
  std::mutex mutex;
  PrintOptions options;
};

// Never destroyed, so printing from a static destructor still finds it.
inline PrintOptionsState& print_options_state() {
  static PrintOptionsState* state = new PrintOptionsState();
  return *state;
}

inline void check_print_options(const PrintOptions& o) {
  // PyTorch accepts these and fails (or misprints) only when a tensor is printed; we refuse
  // them where the mistake is made.
  TP_CHECK_VALUE(o.precision >= 0, "set_printoptions: precision must be non-negative, got ",
                 o.precision);
  TP_CHECK_VALUE(o.precision <= std::numeric_limits<int>::max(),
                 "set_printoptions: precision must be at most ", std::numeric_limits<int>::max(),
                 ", got ", o.precision);
  TP_CHECK_VALUE(o.edgeitems >= 0, "set_printoptions: edgeitems must be non-negative, got ",
                 o.edgeitems);
}

}  // namespace detail

// A snapshot of the current options.
inline PrintOptions get_printoptions() {
  auto& s = detail::print_options_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.options;
}

// Replaces every option at once: `set_printoptions(PrintOptions{.precision = 2})`, and
// `set_printoptions(PrintOptions{})` restores the defaults.
inline void set_printoptions(const PrintOptions& options) {
  detail::check_print_options(options);
  auto& s = detail::print_options_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.options = options;
}

// torch.set_printoptions, argument for argument: a profile ("default", "short" or "full") is
// applied first, then every option that is given; sci_mode is always assigned, so omitting it
// returns to automatic choice, as in PyTorch. An unknown profile is a ValueError (PyTorch
// ignores it silently).
inline void set_printoptions(std::optional<int64_t> precision = std::nullopt,
                             std::optional<double> threshold = std::nullopt,
                             std::optional<int64_t> edgeitems = std::nullopt,
                             std::optional<int64_t> linewidth = std::nullopt,
                             std::optional<std::string_view> profile = std::nullopt,
                             std::optional<bool> sci_mode = std::nullopt) {
  auto& s = detail::print_options_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  PrintOptions o = s.options;
  if (profile) {
    if (*profile == "default") {
      o.precision = 4, o.threshold = 1000, o.edgeitems = 3, o.linewidth = 80;
    } else if (*profile == "short") {
      o.precision = 2, o.threshold = 1000, o.edgeitems = 2, o.linewidth = 80;
    } else if (*profile == "full") {
      o.precision = 4, o.threshold = std::numeric_limits<double>::infinity(), o.edgeitems = 3,
      o.linewidth = 80;
    } else {
      TP_CHECK_VALUE(false, "set_printoptions: unknown profile '", *profile,
                     "'; expected 'default', 'short' or 'full'");
    }
  }
  if (precision) o.precision = *precision;
  if (threshold) o.threshold = *threshold;
  if (edgeitems) o.edgeitems = *edgeitems;
  if (linewidth) o.linewidth = *linewidth;
  o.sci_mode = sci_mode;
  detail::check_print_options(o);
  s.options = o;
}

}  // namespace tensorplay
