// tensorplay::memory::memory_summary(device, abbreviated): the table torch.cuda.memory_summary()
// prints, as a string: the same frame, rows, columns and units (torch's _format_size: B, KB,
// MB... switching once the first row's value reaches 768 of the unit; _format_count: K and M
// from 750 thousand), computed from memory_stats(device).
//
// Differences, all in labels: the title names TensorPlay and the device type; the CPU says
// "CPU OOMs", "malloc retries" and "CPU reserved ..." where torch says "CUDA OOMs",
// "cudaMalloc retries" and "GPU reserved ..." (a CUDA device keeps torch's words, so its table
// differs from torch's only in the title). An allocator without pools (the CPU one) prints
// only the rows of all pools together, as torch's abbreviated table does.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <tensorplay/core/device.hpp>
#include <tensorplay/memory/stats.hpp>

namespace tensorplay::memory {

namespace detail {

// Python's floor division (the stats are never negative, but keep torch's arithmetic).
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// torch's _format_size(sz, pref_sz): "{:7d} {}" with the unit chosen from pref_sz.
inline std::string summary_size(std::int64_t sz, std::int64_t pref) {
  static const char* const prefixes[] = {"B ", "KB", "MB", "GB", "TB", "PB"};
  const char* prefix = prefixes[0];
  double pref_sz = static_cast<double>(pref);
  for (int i = 1; i < 6; ++i) {
    if (pref_sz < 768 * 1024) break;
    prefix = prefixes[i];
    sz = floor_div(sz, 1024);
    pref_sz /= 1024;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%7lld %s", static_cast<long long>(sz), prefix);
  return buf;
}

// torch's _format_count(cnt, pref_cnt): "{:7d} {} ".
inline std::string summary_count(std::int64_t cnt, std::int64_t pref) {
  static const char* const prefixes[] = {" ", "K", "M"};
  const char* prefix = prefixes[0];
  double pref_cnt = static_cast<double>(pref);
  for (int i = 1; i < 3; ++i) {
    if (pref_cnt < 750 * 1000) break;
    prefix = prefixes[i];
    cnt = floor_div(cnt, 1000);
    pref_cnt /= 1000;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%7lld %s ", static_cast<long long>(cnt), prefix);
  return buf;
}

inline std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

// The table for a memory_stats() dict of `device` (split out so that it can be checked
// against torch's printout for the same dict).
inline std::string format_summary(const std::map<std::string, std::int64_t>& stats,
                                  const Device& device, bool abbreviated) {
  const bool cuda = device.is_cuda();
  const bool pools = stats.count("allocation.large_pool.current") != 0;
  const std::string dev_word = cuda ? "GPU" : "CPU";
  const std::string oom_word = cuda ? "CUDA" : "CPU";
  const std::string malloc_word = cuda ? "cudaMalloc" : "malloc";
  const std::string rule_eq(75, '=');
  const std::string rule(75, '-');

  std::vector<std::string> lines;
  lines.push_back(rule_eq);
  const std::string type_name = cuda ? "CUDA" : "CPU";
  lines.push_back(std::string(18, ' ') +
                  detail::pad_right("TensorPlay " + type_name + " memory summary, device ID " +
                                        std::to_string(device.has_index() ? device.index() : 0),
                                    57));
  lines.push_back(rule);
  // torch: "  {_:9} CUDA OOMs: {num_ooms:<12d} | {_:6} cudaMalloc retries: {n:<8d}  ", with the
  // padding after each number widened by the letters our shorter words lack.
  lines.push_back(
      std::string(12, ' ') + oom_word + " OOMs: " +
      detail::pad_right(std::to_string(stats.at("num_ooms")), 12 + 4 - oom_word.size()) + " | " +
      std::string(7, ' ') + malloc_word + " retries: " +
      detail::pad_right(std::to_string(stats.at("num_alloc_retries")),
                        8 + 10 - malloc_word.size()) +
      "  ");
  lines.push_back(rule_eq);
  lines.push_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");

  using Formatter = std::string (*)(std::int64_t, std::int64_t);
  struct Metric {
    const char* key;
    std::string name;
    Formatter format;
  };
  const Metric metrics[] = {
      {"allocated_bytes", "Allocated memory", &detail::summary_size},
      {"active_bytes", "Active memory", &detail::summary_size},
      {"reserved_bytes", dev_word + " reserved memory", &detail::summary_size},
      {"inactive_split_bytes", "Non-releasable memory", &detail::summary_size},
      {"allocation", "Allocations", &detail::summary_count},
      {"active", "Active allocs", &detail::summary_count},
      {"segment", dev_word + " reserved segments", &detail::summary_count},
      {"inactive_split", "Non-releasable allocs", &detail::summary_count},
  };
  auto row = [&](const std::string& name, const std::string& prefix, const std::string& pref_prefix,
                 Formatter format) {
    std::string line = " " + detail::pad_right(name, 21);
    for (const char* field : {"current", "peak", "allocated", "freed"}) {
      line += " | " + format(stats.at(prefix + field), stats.at(pref_prefix + field));
    }
    return line + " ";
  };
  for (const Metric& m : metrics) {
    lines.push_back(rule);
    const std::string all = std::string(m.key) + ".all.";
    lines.push_back(row(m.name, all, all, m.format));
    if (!abbreviated && pools) {
      lines.push_back(
          row("      from large pool", std::string(m.key) + ".large_pool.", all, m.format));
      lines.push_back(
          row("      from small pool", std::string(m.key) + ".small_pool.", all, m.format));
    }
  }
  const std::pair<const char*, std::string> oversize[] = {
      {"oversize_allocations.", "Oversize allocations"},
      {"oversize_segments.", "Oversize " + dev_word + " segments"}};
  for (const auto& [key, name] : oversize) {
    lines.push_back(rule);
    lines.push_back(row(name, key, key, &detail::summary_count));
  }
  lines.push_back(rule_eq);

  std::string out = "|";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i != 0) out += "|\n|";
    out += lines[i];
  }
  return out + "|\n";
}

}  // namespace detail

// torch.cuda.memory_summary(device, abbreviated).
inline std::string memory_summary(const Device& device = Device("cpu"), bool abbreviated = false) {
  return detail::format_summary(memory_stats(device), device, abbreviated);
}

}  // namespace tensorplay::memory
