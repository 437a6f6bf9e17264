// Tests for include/tensorplay/memory/summary.hpp: the table is torch 1.13's
// torch.cuda.memory_summary() printout, checked byte for byte against what torch prints for
// the same memory_stats() dicts (generated once with torch 1.13; only the labels named in
// summary.hpp differ), and the live CPU table has the right rows and values.
#include <tensorplay/memory/summary.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace memory_summary_test {

// cuda: torch 1.13's memory_summary for this dict (labels adapted, see summary.hpp)
inline const std::map<std::string, std::int64_t> k_cuda_stats = {
    {"allocation.all.current", 112648},
    {"allocation.all.peak", 272810},
    {"allocation.all.allocated", 528000},
    {"allocation.all.freed", 925732},
    {"allocation.small_pool.current", 750000},
    {"allocation.small_pool.peak", 2338878},
    {"allocation.small_pool.allocated", 749999},
    {"allocation.small_pool.freed", 4892360},
    {"allocation.large_pool.current", 6715512},
    {"allocation.large_pool.peak", 750000},
    {"allocation.large_pool.allocated", 0},
    {"allocation.large_pool.freed", 14940780},
    {"segment.all.current", 18759520},
    {"segment.all.peak", 749999},
    {"segment.all.allocated", 750000},
    {"segment.all.freed", 34111888},
    {"segment.small_pool.current", 40686440},
    {"segment.small_pool.peak", 48068730},
    {"segment.small_pool.allocated", 56306272},
    {"segment.small_pool.freed", 750000},
    {"segment.large_pool.current", 749999},
    {"segment.large_pool.peak", 0},
    {"segment.large_pool.allocated", 98759240},
    {"segment.large_pool.freed", 111985752},
    {"active.all.current", 750000},
    {"active.all.peak", 141907298},
    {"active.all.allocated", 158697360},
    {"active.all.freed", 749999},
    {"active.small_pool.current", 196173632},
    {"active.small_pool.peak", 750000},
    {"active.small_pool.allocated", 239161528},
    {"active.small_pool.freed", 262841120},
    {"active.large_pool.current", 0},
    {"active.large_pool.peak", 314809162},
    {"active.large_pool.allocated", 749999},
    {"active.large_pool.freed", 373239108},
    {"inactive_split.all.current", 404996080},
    {"inactive_split.all.peak", 438511070},
    {"inactive_split.all.allocated", 473831592},
    {"inactive_split.all.freed", 750000},
    {"inactive_split.small_pool.current", 550079288},
    {"inactive_split.small_pool.peak", 749999},
    {"inactive_split.small_pool.allocated", 634119280},
    {"inactive_split.small_pool.freed", 0},
    {"inactive_split.large_pool.current", 750000},
    {"inactive_split.large_pool.peak", 775621318},
    {"inactive_split.large_pool.allocated", 827096600},
    {"inactive_split.large_pool.freed", 880805040},
    {"allocated_bytes.all.current", 786431},
    {"allocated_bytes.all.peak", 786432},
    {"allocated_bytes.all.allocated", 1055804448},
    {"allocated_bytes.all.freed", 1118920660},
    {"allocated_bytes.small_pool.current", 1184507600},
    {"allocated_bytes.small_pool.peak", 1252612782},
    {"allocated_bytes.small_pool.allocated", 0},
    {"allocated_bytes.small_pool.freed", 786431},
    {"allocated_bytes.large_pool.current", 1472512920},
    {"allocated_bytes.large_pool.peak", 1551166210},
    {"allocated_bytes.large_pool.allocated", 1632575312},
    {"allocated_bytes.large_pool.freed", 786432},
    {"reserved_bytes.all.current", 1803851008},
    {"reserved_bytes.all.peak", 1893812630},
    {"reserved_bytes.all.allocated", 786431},
    {"reserved_bytes.all.freed", 2082620992},
    {"reserved_bytes.small_pool.current", 786432},
    {"reserved_bytes.small_pool.peak", 0},
    {"reserved_bytes.small_pool.allocated", 2388759040},
    {"reserved_bytes.small_pool.freed", 2497108580},
    {"reserved_bytes.large_pool.current", 2608689072},
    {"reserved_bytes.large_pool.peak", 786431},
    {"reserved_bytes.large_pool.allocated", 2841732968},
    {"reserved_bytes.large_pool.freed", 2963291400},
    {"active_bytes.all.current", 3088270840},
    {"active_bytes.all.peak", 3216718802},
    {"active_bytes.all.allocated", 786432},
    {"active_bytes.all.freed", 3484210348},
    {"active_bytes.small_pool.current", 0},
    {"active_bytes.small_pool.peak", 3766146150},
    {"active_bytes.small_pool.allocated", 3912649432},
    {"active_bytes.small_pool.freed", 786432},
    {"active_bytes.large_pool.current", 4216964328},
    {"active_bytes.large_pool.peak", 4374870970},
    {"active_bytes.large_pool.allocated", 4536673760},
    {"active_bytes.large_pool.freed", 786431},
    {"inactive_split_bytes.all.current", 786432},
    {"inactive_split_bytes.all.peak", 5045934158},
    {"inactive_split_bytes.all.allocated", 5223796680},
    {"inactive_split_bytes.all.freed", 0},
    {"inactive_split_bytes.small_pool.current", 5591970392},
    {"inactive_split_bytes.small_pool.peak", 786432},
    {"inactive_split_bytes.small_pool.allocated", 786431},
    {"inactive_split_bytes.small_pool.freed", 6176065340},
    {"inactive_split_bytes.large_pool.current", 6379442880},
    {"inactive_split_bytes.large_pool.peak", 6587239222},
    {"inactive_split_bytes.large_pool.allocated", 786432},
    {"inactive_split_bytes.large_pool.freed", 7016278368},
    {"oversize_allocations.current", 0},
    {"oversize_allocations.peak", 0},
    {"oversize_allocations.allocated", 0},
    {"oversize_allocations.freed", 0},
    {"oversize_segments.current", 0},
    {"oversize_segments.peak", 0},
    {"oversize_segments.allocated", 0},
    {"oversize_segments.freed", 0},
    {"num_alloc_retries", 3},
    {"num_ooms", 12345},
};
inline const char* const k_cuda_summary =
    "|===========================================================================|\n"
    "|                  TensorPlay CUDA memory summary, device ID 0              |\n"
    "|---------------------------------------------------------------------------|\n"
    "|            CUDA OOMs: 12345        |        cudaMalloc retries: 3         |\n"
    "|===========================================================================|\n"
    "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Allocated memory      |  786431 B  |     768 KB |    1006 MB |    1067 MB |\n"
    "|       from large pool | 1472512920 B  | 1514810 KB |    1556 MB |       0 MB |\n"
    "|       from small pool | 1184507600 B  | 1223254 KB |       0 MB |       0 MB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Active memory         |    2945 MB |    3067 MB |     768 KB |    3322 MB |\n"
    "|       from large pool |    4021 MB |    4172 MB | 4430345 KB |       0 MB |\n"
    "|       from small pool |       0 MB |    3591 MB | 3820946 KB |       0 MB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| GPU reserved memory   |    1720 MB |    1806 MB |  786431 B  |    1986 MB |\n"
    "|       from large pool |    2487 MB |       0 MB | 2841732968 B  |    2826 MB |\n"
    "|       from small pool |       0 MB |       0 MB | 2388759040 B  |    2381 MB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Non-releasable memory |     768 KB |    4812 MB |    4981 MB |       0 B  |\n"
    "|       from large pool | 6229924 KB |    6282 MB |       0 MB | 7016278368 B  |\n"
    "|       from small pool | 5460908 KB |       0 MB |       0 MB | 6176065340 B  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Allocations           |  112648    |  272810    |  528000    |     925 K  |\n"
    "|       from large pool | 6715512    |  750000    |       0    |   14940 K  |\n"
    "|       from small pool |  750000    | 2338878    |  749999    |    4892 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Active allocs         |     750 K  |  141907 K  |  158697 K  |  749999    |\n"
    "|       from large pool |       0 K  |  314809 K  |     749 K  | 373239108    |\n"
    "|       from small pool |  196173 K  |     750 K  |  239161 K  | 262841120    |\n"
    "|---------------------------------------------------------------------------|\n"
    "| GPU reserved segments |   18759 K  |  749999    |     750 K  |   34111 K  |\n"
    "|       from large pool |     749 K  |       0    |   98759 K  |  111985 K  |\n"
    "|       from small pool |   40686 K  | 48068730    |   56306 K  |     750 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Non-releasable allocs |  404996 K  |  438511 K  |  473831 K  |     750 K  |\n"
    "|       from large pool |     750 K  |  775621 K  |  827096 K  |  880805 K  |\n"
    "|       from small pool |  550079 K  |     749 K  |  634119 K  |       0 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Oversize allocations  |       0    |       0    |       0    |       0    |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Oversize GPU segments |       0    |       0    |       0    |       0    |\n"
    "|===========================================================================|\n";

// cuda_abbr: torch 1.13's abbreviated memory_summary for the same dict (labels adapted, see
// summary.hpp)
inline const std::map<std::string, std::int64_t>& k_cuda_abbr_stats = k_cuda_stats;
inline const char* const k_cuda_abbr_summary =
    "|===========================================================================|\n"
    "|                  TensorPlay CUDA memory summary, device ID 0              |\n"
    "|---------------------------------------------------------------------------|\n"
    "|            CUDA OOMs: 12345        |        cudaMalloc retries: 3         |\n"
    "|===========================================================================|\n"
    "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Allocated memory      |  786431 B  |     768 KB |    1006 MB |    1067 MB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Active memory         |    2945 MB |    3067 MB |     768 KB |    3322 MB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| GPU reserved memory   |    1720 MB |    1806 MB |  786431 B  |    1986 MB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Non-releasable memory |     768 KB |    4812 MB |    4981 MB |       0 B  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Allocations           |  112648    |  272810    |  528000    |     925 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Active allocs         |     750 K  |  141907 K  |  158697 K  |  749999    |\n"
    "|---------------------------------------------------------------------------|\n"
    "| GPU reserved segments |   18759 K  |  749999    |     750 K  |   34111 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Non-releasable allocs |  404996 K  |  438511 K  |  473831 K  |     750 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Oversize allocations  |       0    |       0    |       0    |       0    |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Oversize GPU segments |       0    |       0    |       0    |       0    |\n"
    "|===========================================================================|\n";

// cpu: torch 1.13's memory_summary for this dict (labels adapted, see summary.hpp)
inline const std::map<std::string, std::int64_t> k_cpu_stats = {
    {"allocation.all.current", 112648},
    {"allocation.all.peak", 272810},
    {"allocation.all.allocated", 528000},
    {"allocation.all.freed", 925732},
    {"segment.all.current", 750000},
    {"segment.all.peak", 2338878},
    {"segment.all.allocated", 749999},
    {"segment.all.freed", 4892360},
    {"active.all.current", 6715512},
    {"active.all.peak", 750000},
    {"active.all.allocated", 0},
    {"active.all.freed", 14940780},
    {"inactive_split.all.current", 18759520},
    {"inactive_split.all.peak", 749999},
    {"inactive_split.all.allocated", 750000},
    {"inactive_split.all.freed", 34111888},
    {"allocated_bytes.all.current", 40686440},
    {"allocated_bytes.all.peak", 48068730},
    {"allocated_bytes.all.allocated", 56306272},
    {"allocated_bytes.all.freed", 786432},
    {"reserved_bytes.all.current", 786431},
    {"reserved_bytes.all.peak", 0},
    {"reserved_bytes.all.allocated", 98759240},
    {"reserved_bytes.all.freed", 111985752},
    {"active_bytes.all.current", 786432},
    {"active_bytes.all.peak", 141907298},
    {"active_bytes.all.allocated", 158697360},
    {"active_bytes.all.freed", 786431},
    {"inactive_split_bytes.all.current", 196173632},
    {"inactive_split_bytes.all.peak", 786432},
    {"inactive_split_bytes.all.allocated", 239161528},
    {"inactive_split_bytes.all.freed", 262841120},
    {"oversize_allocations.current", 0},
    {"oversize_allocations.peak", 0},
    {"oversize_allocations.allocated", 0},
    {"oversize_allocations.freed", 0},
    {"oversize_segments.current", 0},
    {"oversize_segments.peak", 0},
    {"oversize_segments.allocated", 0},
    {"oversize_segments.freed", 0},
    {"num_alloc_retries", 3},
    {"num_ooms", 12345},
};
inline const char* const k_cpu_summary =
    "|===========================================================================|\n"
    "|                  TensorPlay CPU memory summary, device ID 0               |\n"
    "|---------------------------------------------------------------------------|\n"
    "|            CPU OOMs: 12345         |        malloc retries: 3             |\n"
    "|===========================================================================|\n"
    "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Allocated memory      |   39732 KB |   46942 KB |   54986 KB |     768 KB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Active memory         |     768 KB |  138581 KB |  154977 KB |  786431 B  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| CPU reserved memory   |  786431 B  |       0 B  |   96444 KB |  109361 KB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Non-releasable memory |  191575 KB |     768 KB |  233556 KB |  256680 KB |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Allocations           |  112648    |  272810    |  528000    |     925 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Active allocs         |    6715 K  |     750 K  |       0    |   14940 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| CPU reserved segments |     750 K  |    2338 K  |  749999    |    4892 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Non-releasable allocs |   18759 K  |  749999    |     750 K  |   34111 K  |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Oversize allocations  |       0    |       0    |       0    |       0    |\n"
    "|---------------------------------------------------------------------------|\n"
    "| Oversize CPU segments |       0    |       0    |       0    |       0    |\n"
    "|===========================================================================|\n";

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace memory_summary_test

TEST_CASE("memory_summary: torch's table for the same stats", "[memory][summary]") {
  namespace t = memory_summary_test;
  namespace md = tensorplay::memory::detail;
  const tensorplay::Device cuda0(tensorplay::DeviceType::CUDA, 0);
  CHECK(md::format_summary(t::k_cuda_stats, cuda0, false) == t::k_cuda_summary);
  CHECK(md::format_summary(t::k_cuda_abbr_stats, cuda0, true) == t::k_cuda_abbr_summary);
  // An allocator without pools prints the abbreviated rows, abbreviated or not.
  const tensorplay::Device cpu("cpu");
  CHECK(md::format_summary(t::k_cpu_stats, cpu, true) == t::k_cpu_summary);
  CHECK(md::format_summary(t::k_cpu_stats, cpu, false) == t::k_cpu_summary);
}

TEST_CASE("memory_summary: torch's units", "[memory][summary]") {
  namespace md = tensorplay::memory::detail;
  CHECK(md::summary_size(0, 0) == "      0 B ");
  CHECK(md::summary_size(786431, 786431) == " 786431 B ");
  CHECK(md::summary_size(786432, 786432) == "    768 KB");
  // The unit follows the first row's value (pref), not the value itself.
  CHECK(md::summary_size(5 << 20, 1024) == "5242880 B ");
  CHECK(md::summary_size(std::int64_t{3} << 40, std::int64_t{3} << 40) == "   3072 GB");
  CHECK(md::summary_count(749999, 749999) == " 749999   ");
  CHECK(md::summary_count(750000, 750000) == "    750 K ");
  CHECK(md::summary_count(2000000000, 2000000000) == "   2000 M ");
}

TEST_CASE("memory_summary: the live CPU table", "[memory][summary]") {
  namespace t = memory_summary_test;
  auto& allocator = tensorplay::CachingAllocator::instance();
  tensorplay::DataPtr p = allocator.allocate(1000);
  const std::string text = tensorplay::memory::memory_summary();
  CHECK(text == tensorplay::memory::memory_summary("cpu", true));
  const std::vector<std::string> lines = t::lines_of(text);
  REQUIRE(lines.size() == 27);
  for (const std::string& line : lines) {
    CAPTURE(line);
    CHECK(line.size() == 77);
    CHECK(line.front() == '|');
    CHECK(line.back() == '|');
  }
  CHECK(lines[1].find("TensorPlay CPU memory summary") != std::string::npos);
  CHECK(lines[7].rfind("| Allocated memory      |", 0) == 0);
  CHECK(lines[13].rfind("| Non-releasable memory |       0 B  |       0 B  |       0 B  |", 0) ==
        0);
  CHECK(lines[15].rfind("| Allocations           |", 0) == 0);
  CHECK(lines[19].rfind("| CPU reserved segments |", 0) == 0);
  CHECK(text.find("from large pool") == std::string::npos);
}

TEST_CASE("memory_summary: bad devices", "[memory][summary]") {
  CHECK_THROWS_WITH(tensorplay::memory::memory_summary("gpu"),
                    "Expected one of cpu, cuda, vulkan device type at start of device string: gpu");
#if !TENSORPLAY_USE_CUDA
  CHECK_THROWS_AS(tensorplay::memory::memory_summary("cuda"), tensorplay::NotImplementedError);
#endif
}
