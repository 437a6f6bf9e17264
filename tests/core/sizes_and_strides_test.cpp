#include <tensorplay/core/sizes_and_strides.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

namespace core_sizes_and_strides_test {

using tensorplay::IntArrayRef;
using tensorplay::SizesAndStrides;

namespace {

constexpr std::size_t kInline = SizesAndStrides::kInlineSize;
constexpr std::size_t kMaxTestRank = 8;

// Distinct, recognisable values so a value landing in the wrong slot is caught.
constexpr int64_t size_value(std::size_t dim, int64_t salt = 0) {
  return 10 + static_cast<int64_t>(dim) + salt;
}
constexpr int64_t stride_value(std::size_t dim, int64_t salt = 0) {
  return 100 + static_cast<int64_t>(dim) + salt;
}

SizesAndStrides make(std::size_t rank, int64_t salt = 0) {
  SizesAndStrides s;
  s.resize(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    s.size_at(d) = size_value(d, salt);
    s.stride_at(d) = stride_value(d, salt);
  }
  return s;
}

void check_values(const SizesAndStrides& s, std::size_t rank, int64_t salt = 0) {
  REQUIRE(s.size() == rank);
  for (std::size_t d = 0; d < rank; ++d) {
    CHECK(s.size_at(d) == size_value(d, salt));
    CHECK(s.stride_at(d) == stride_value(d, salt));
  }
}

// Whether the values live inside the object (the inline arrays) rather than on the heap.
bool stored_inline(const SizesAndStrides& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.sizes_data());
  const auto* lo = reinterpret_cast<const unsigned char*>(&s);
  return !std::less<>{}(p, lo) && std::less<>{}(p, lo + sizeof(s));
}

const std::vector<std::size_t> kRanks{0, 1, 2, 4, 5, 6, 8};

}  // namespace

TEST_CASE("SizesAndStrides: default state is c10's", "[core][sizes_and_strides]") {
  SizesAndStrides s;
  CHECK(s.size() == 1);
  CHECK(s.size_at(0) == 0);
  CHECK(s.stride_at(0) == 1);
  CHECK(s.sizes_arrayref() == std::vector<int64_t>{0});
  CHECK(s.strides_arrayref() == std::vector<int64_t>{1});
  CHECK(stored_inline(s));
  // c10's packing: the rank plus a union of the two inline arrays and the heap pointer.
  STATIC_REQUIRE(sizeof(SizesAndStrides) == sizeof(std::size_t) + 2 * kInline * sizeof(int64_t));
}

TEST_CASE("SizesAndStrides: resize preserves values across every rank transition",
          "[core][sizes_and_strides]") {
  for (std::size_t from = 0; from <= kMaxTestRank; ++from) {
    for (std::size_t to = 0; to <= kMaxTestRank; ++to) {
      CAPTURE(from, to);
      SizesAndStrides s = make(from);
      REQUIRE(stored_inline(s) == (from <= kInline));
      s.resize(to);
      REQUIRE(s.size() == to);
      CHECK(stored_inline(s) == (to <= kInline));
      for (std::size_t d = 0; d < to; ++d) {
        if (d < from) {
          CHECK(s.size_at(d) == size_value(d));
          CHECK(s.stride_at(d) == stride_value(d));
        } else {
          // New dims are zeroed, never stale values from a larger earlier rank.
          CHECK(s.size_at(d) == 0);
          CHECK(s.stride_at(d) == 0);
        }
      }
      CHECK(s.sizes_end() - s.sizes_begin() == static_cast<std::ptrdiff_t>(to));
      CHECK(s.strides_end() - s.strides_begin() == static_cast<std::ptrdiff_t>(to));
    }
  }
}

TEST_CASE("SizesAndStrides: shrinking then growing exposes zeros, not stale values",
          "[core][sizes_and_strides]") {
  for (std::size_t big : {4u, 5u, 7u, 8u}) {
    for (std::size_t small : {0u, 1u, 2u, 6u}) {
      if (small >= big) continue;
      CAPTURE(big, small);
      SizesAndStrides s = make(big);
      s.resize(small);
      s.resize(big);
      for (std::size_t d = 0; d < big; ++d) {
        CHECK(s.size_at(d) == (d < small ? size_value(d) : 0));
        CHECK(s.stride_at(d) == (d < small ? stride_value(d) : 0));
      }
    }
  }
  SECTION("a walk inline -> heap -> inline -> heap") {
    SizesAndStrides s = make(3);
    s.resize(7);
    s.size_at(6) = 66;
    s.stride_at(6) = 666;
    s.resize(2);
    CHECK(stored_inline(s));
    s.resize(9);
    CHECK_FALSE(stored_inline(s));
    CHECK(s.sizes_arrayref() == std::vector<int64_t>{10, 11, 0, 0, 0, 0, 0, 0, 0});
    CHECK(s.strides_arrayref() == std::vector<int64_t>{100, 101, 0, 0, 0, 0, 0, 0, 0});
  }
}

TEST_CASE("SizesAndStrides: copy between every inline/heap combination",
          "[core][sizes_and_strides]") {
  for (std::size_t src_rank : kRanks) {
    CAPTURE(src_rank);
    SECTION("copy construction") {
      const SizesAndStrides src = make(src_rank, 1);
      SizesAndStrides dst(src);
      check_values(dst, src_rank, 1);
      check_values(src, src_rank, 1);
      CHECK(dst == src);
      if (src_rank > kInline) CHECK(dst.sizes_data() != src.sizes_data());  // deep copy
      dst.size_at_unchecked(0) = -5;                                        // independent storage
      if (src_rank > 0) CHECK(src.size_at(0) == size_value(0, 1));
    }
    for (std::size_t dst_rank : kRanks) {
      CAPTURE(dst_rank);
      SECTION("copy assignment") {
        const SizesAndStrides src = make(src_rank, 1);
        SizesAndStrides dst = make(dst_rank, 2);
        dst = src;
        check_values(dst, src_rank, 1);
        check_values(src, src_rank, 1);
        CHECK(stored_inline(dst) == (src_rank <= kInline));
        if (src_rank > kInline) CHECK(dst.sizes_data() != src.sizes_data());
      }
      SECTION("move assignment") {
        SizesAndStrides src = make(src_rank, 1);
        const int64_t* heap = src.sizes_data();
        SizesAndStrides dst = make(dst_rank, 2);
        dst = std::move(src);
        check_values(dst, src_rank, 1);
        if (src_rank > kInline) CHECK(dst.sizes_data() == heap);  // stolen, not copied
        CHECK(src.size() == 0);                                   // NOLINT(bugprone-use-after-move)
        // The moved-from object is fully usable.
        src = make(dst_rank, 3);
        check_values(src, dst_rank, 3);
      }
    }
    SECTION("move construction") {
      SizesAndStrides src = make(src_rank, 1);
      const int64_t* heap = src.sizes_data();
      SizesAndStrides dst(std::move(src));
      check_values(dst, src_rank, 1);
      if (src_rank > kInline) CHECK(dst.sizes_data() == heap);
      CHECK(src.size() == 0);  // NOLINT(bugprone-use-after-move)
      CHECK(stored_inline(src));
      SizesAndStrides again(src);  // copying a moved-from object is fine
      CHECK(again.size() == 0);
      src.resize(7);
      CHECK(src.sizes_arrayref() == std::vector<int64_t>(7, 0));
    }
    SECTION("self-assignment") {
      SizesAndStrides s = make(src_rank, 4);
      SizesAndStrides& alias = s;
      s = alias;
      check_values(s, src_rank, 4);
      s = std::move(alias);
      check_values(s, src_rank, 4);
    }
  }
}

TEST_CASE("SizesAndStrides: equality", "[core][sizes_and_strides]") {
  CHECK(make(3) == make(3));
  CHECK(make(7) == make(7));
  CHECK_FALSE(make(3) == make(4));
  CHECK(make(3) != make(3, 1));
  SizesAndStrides a = make(3);
  SizesAndStrides b = make(5);
  b.resize(3);  // stale inline slots 3 and 4 must not matter
  CHECK(a == b);
}

TEST_CASE("SizesAndStrides: set_sizes and set_strides", "[core][sizes_and_strides]") {
  SizesAndStrides s;
  s.set_sizes({2, 3});
  CHECK(s.size() == 2);
  CHECK(s.sizes_arrayref() == std::vector<int64_t>{2, 3});
  CHECK(s.strides_arrayref() == std::vector<int64_t>{1, 0});  // dim 0 kept, dim 1 new
  s.set_strides({3, 1});
  CHECK(s.strides_arrayref() == std::vector<int64_t>{3, 1});

  SECTION("to the heap and back keeps the strides of surviving dims") {
    s.set_sizes({1, 2, 3, 4, 5, 6, 7});
    CHECK_FALSE(stored_inline(s));
    CHECK(s.sizes_arrayref() == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7});
    CHECK(s.strides_arrayref() == std::vector<int64_t>{3, 1, 0, 0, 0, 0, 0});
    s.set_strides({7, 6, 5, 4, 3, 2, 1});
    s.set_sizes({9, 8, 7, 6, 5, 4});  // heap -> heap, smaller
    CHECK(s.sizes_arrayref() == std::vector<int64_t>{9, 8, 7, 6, 5, 4});
    CHECK(s.strides_arrayref() == std::vector<int64_t>{7, 6, 5, 4, 3, 2});
    s.set_sizes({4, 4});
    CHECK(stored_inline(s));
    CHECK(s.sizes_arrayref() == std::vector<int64_t>{4, 4});
    CHECK(s.strides_arrayref() == std::vector<int64_t>{7, 6});
  }
  SECTION("rank 0") {
    s.set_sizes({});
    CHECK(s.size() == 0);
    CHECK(s.sizes_arrayref().empty());
    s.set_strides({});
  }
  SECTION("from a view of itself") {
    s.set_sizes(s.sizes_arrayref());
    CHECK(s.sizes_arrayref() == std::vector<int64_t>{2, 3});
    s.set_sizes(s.strides_arrayref());
    CHECK(s.sizes_arrayref() == std::vector<int64_t>{3, 1});

    SizesAndStrides h = make(8);
    h.set_sizes(h.sizes_arrayref().slice(2));  // heap 8 -> heap 6
    CHECK(h.sizes_arrayref() == std::vector<int64_t>{12, 13, 14, 15, 16, 17});
    h.set_sizes(h.sizes_arrayref().slice(1));  // heap 6 -> inline 5, source freed by the move
    CHECK(stored_inline(h));
    CHECK(h.sizes_arrayref() == std::vector<int64_t>{13, 14, 15, 16, 17});
    CHECK(h.strides_arrayref() == std::vector<int64_t>{100, 101, 102, 103, 104});
    h.set_sizes(h.strides_arrayref().slice(1, 3));  // inline, from the strides half
    CHECK(h.sizes_arrayref() == std::vector<int64_t>{101, 102, 103});

    SizesAndStrides g = make(7);
    g.set_strides(g.sizes_arrayref());
    g.set_sizes(g.strides_arrayref().slice(0, 6));  // heap 7 -> heap 6 from its own strides
    CHECK(g.sizes_arrayref() == std::vector<int64_t>{10, 11, 12, 13, 14, 15});
    CHECK(g.strides_arrayref() == std::vector<int64_t>{10, 11, 12, 13, 14, 15});
  }
  SECTION("set_strides of another rank is refused and changes nothing") {
    CHECK_THROWS_AS(s.set_strides({1}), tensorplay::Error);
    CHECK_THROWS_AS(s.set_strides({1, 2, 3}), tensorplay::Error);
    CHECK(s.strides_arrayref() == std::vector<int64_t>{3, 1});
  }
}

TEST_CASE("SizesAndStrides: accessors", "[core][sizes_and_strides]") {
  for (std::size_t rank : {3u, 7u}) {
    CAPTURE(rank);
    SizesAndStrides s = make(rank);
    const SizesAndStrides& cs = s;
    s.size_at(1) = 42;
    s.stride_at(2) = -7;
    CHECK(cs.size_at(1) == 42);
    CHECK(cs.size_at_unchecked(1) == 42);
    CHECK(cs.stride_at(2) == -7);
    CHECK(cs.stride_at_unchecked(2) == -7);
    s.size_at_unchecked(0) = 1;
    s.stride_at_unchecked(0) = 2;
    CHECK(cs.sizes_data()[0] == 1);
    CHECK(cs.strides_data()[0] == 2);
    CHECK(*cs.sizes_begin() == 1);
    CHECK(*cs.strides_begin() == 2);
    CHECK(cs.sizes_arrayref().size() == rank);
    CHECK(cs.strides_arrayref().data() == cs.strides_data());
    for (auto it = s.sizes_begin(); it != s.sizes_end(); ++it) *it = 5;
    CHECK(cs.sizes_arrayref() == std::vector<int64_t>(rank, 5));
    CHECK(cs.strides_arrayref()[2] == -7);  // sizes and strides do not overlap
  }
}

TEST_CASE("SizesAndStrides: checked accessors throw IndexError", "[core][sizes_and_strides]") {
  for (std::size_t rank : {0u, 2u, 5u, 6u}) {
    CAPTURE(rank);
    SizesAndStrides s = make(rank);
    const SizesAndStrides& cs = s;
    CHECK_THROWS_AS(s.size_at(rank), tensorplay::IndexError);
    CHECK_THROWS_AS(s.stride_at(rank), tensorplay::IndexError);
    CHECK_THROWS_AS(cs.size_at(rank), tensorplay::IndexError);
    CHECK_THROWS_AS(cs.stride_at(rank + 10), tensorplay::IndexError);
    CHECK_THROWS_AS(cs.size_at(static_cast<std::size_t>(-1)), tensorplay::IndexError);
  }
  SizesAndStrides s;
  CHECK_THROWS_WITH(s.size_at(3),
                    "SizesAndStrides: dimension 3 out of range for a tensor of rank 1");
}

TEST_CASE("SizesAndStrides::compute_contiguous_strides", "[core][sizes_and_strides]") {
  using V = std::vector<int64_t>;
  CHECK(SizesAndStrides::compute_contiguous_strides({2, 3, 4}) == V{12, 4, 1});
  CHECK(SizesAndStrides::compute_contiguous_strides({2, 0}) == V{1, 1});
  CHECK(SizesAndStrides::compute_contiguous_strides({0, 3}) == V{3, 1});
  CHECK(SizesAndStrides::compute_contiguous_strides({2, 0, 3}) == V{3, 3, 1});
  CHECK(SizesAndStrides::compute_contiguous_strides({}) == V{});
  CHECK(SizesAndStrides::compute_contiguous_strides({7}) == V{1});
  CHECK(SizesAndStrides::compute_contiguous_strides({1, 1, 1}) == V{1, 1, 1});
  CHECK(SizesAndStrides::compute_contiguous_strides({2, 1, 3}) == V{3, 3, 1});
  CHECK(SizesAndStrides::compute_contiguous_strides({2, 2, 2, 2, 2, 2, 2, 2}) ==
        V{128, 64, 32, 16, 8, 4, 2, 1});
  // What they produce is always contiguous and dense.
  for (const V& sizes : {V{2, 3, 4}, V{2, 0}, V{0, 3}, V{}, V{1, 5, 1}, V{3, 1, 4, 1, 5, 9, 2}}) {
    const V strides = SizesAndStrides::compute_contiguous_strides(sizes);
    CHECK(SizesAndStrides::is_contiguous(sizes, strides));
    CHECK(SizesAndStrides::is_non_overlapping_and_dense(sizes, strides));
  }
}

TEST_CASE("SizesAndStrides::is_contiguous and is_non_overlapping_and_dense",
          "[core][sizes_and_strides]") {
  using V = std::vector<int64_t>;
  struct Case {
    V sizes, strides;
    bool contiguous, dense;
  };
  const std::vector<Case> cases{
      {{}, {}, true, true},                         // scalar
      {{5}, {1}, true, true},                       //
      {{5}, {2}, false, false},                     // every other element
      {{1}, {7}, true, true},                       // a lone element's stride is irrelevant
      {{0}, {7}, true, true},                       // no elements
      {{5}, {0}, false, false},                     // expanded
      {{2, 3}, {3, 1}, true, true},                 // row-major
      {{2, 3}, {1, 2}, false, true},                // transposed: dense in another order
      {{3, 2}, {1, 3}, false, true},                // .t() of a contiguous (2, 3)
      {{2, 3}, {0, 1}, false, false},               // expanded along dim 0
      {{2, 3}, {3, 0}, false, false},               // expanded along dim 1
      {{2, 3}, {6, 2}, false, false},               // strided slice: gaps
      {{2, 3}, {3, 2}, false, false},               // overlapping-ish: gaps and reuse
      {{2, 3}, {2, 1}, false, false},               // overlapping rows
      {{2, 3}, {-3, 1}, false, false},              // flipped
      {{2, 1, 3}, {3, 100, 1}, true, true},         // size-1 dim with an odd stride
      {{1, 1}, {5, 9}, true, true},                 //
      {{1, 4}, {1, 1}, true, true},                 // as `unsqueeze(0)` may produce
      {{4, 1}, {1, 1}, true, true},                 //
      {{4, 1}, {1, 4}, true, true},                 //
      {{1, 3, 1, 2}, {0, 2, 0, 1}, true, true},     //
      {{2, 0}, {1, 1}, true, true},                 // zero-size
      {{0, 3}, {0, 0}, true, true},                 // zero-size, any strides
      {{3, 0, 2}, {7, 13, 5}, true, true},          // zero-size, any strides
      {{2, 3, 4}, {12, 4, 1}, true, true},          //
      {{2, 3, 4}, {12, 1, 3}, false, true},         // permuted last two dims
      {{2, 3, 4}, {1, 8, 2}, false, true},          // fully permuted
      {{2, 3, 4}, {1, 2, 6}, false, true},          // reversed dim order
      {{2, 3, 4}, {24, 4, 1}, false, false},        // every other block
      {{2, 3, 4}, {12, 4, 2}, false, false},        // step 2 in the last dim
      {{2, 3, 1, 4}, {12, 1, 1, 3}, false, true},   // channels-last of an NCHW (2, 3, 1, 4)
      {{2, 3, 5, 4}, {60, 1, 12, 3}, false, true},  // channels-last (N, C, H, W)
      {{2, 2, 2, 2, 2, 2}, {32, 16, 8, 4, 2, 1}, true, true},       // heap rank
      {{2, 2, 2, 2, 2, 2}, {1, 2, 4, 8, 16, 32}, false, true},      // heap rank, reversed
      {{2, 2, 2, 2, 2, 2}, {1, 2, 4, 8, 16, 64}, false, false},     // heap rank, a gap
      {{2, 1, 2, 1, 2, 1, 2}, {8, 3, 4, 0, 1, 9, 2}, false, true},  // heap rank, size-1 noise
  };
  for (const Case& c : cases) {
    CAPTURE(c.sizes, c.strides);
    CHECK(SizesAndStrides::is_contiguous(c.sizes, c.strides) == c.contiguous);
    CHECK(SizesAndStrides::is_non_overlapping_and_dense(c.sizes, c.strides) == c.dense);
  }
  CHECK_THROWS_AS(SizesAndStrides::is_contiguous(V{2, 3}, V{1}), tensorplay::Error);
  CHECK_THROWS_AS(SizesAndStrides::is_non_overlapping_and_dense(V{2}, V{}), tensorplay::Error);
}

// Both predicates against their definitions, by enumerating every element's offset:
// contiguous means offset == row-major index for every element; non-overlapping and dense means
// the offsets are exactly {0, ..., numel - 1}.
TEST_CASE("SizesAndStrides: contiguity rules agree with brute force", "[core][sizes_and_strides]") {
  const std::vector<int64_t> size_choices{0, 1, 2, 3};
  const std::vector<int64_t> stride_choices{-1, 0, 1, 2, 3, 4, 6, 9};
  std::size_t checked = 0;
  for (std::size_t rank = 0; rank <= 3; ++rank) {
    std::vector<int64_t> sizes(rank), strides(rank);
    std::function<void(std::size_t)> over_sizes, over_strides;
    over_strides = [&](std::size_t d) {
      if (d < rank) {
        for (int64_t st : stride_choices) {
          strides[d] = st;
          over_strides(d + 1);
        }
        return;
      }
      int64_t numel = 1;
      for (int64_t s : sizes) numel *= s;
      bool row_major = true;
      std::set<int64_t> offsets;
      std::vector<int64_t> idx(rank, 0);
      for (int64_t linear = 0; linear < numel; ++linear) {
        int64_t off = 0;
        for (std::size_t k = 0; k < rank; ++k) off += idx[k] * strides[k];
        row_major = row_major && off == linear;
        offsets.insert(off);
        for (std::size_t k = rank; k-- > 0;) {  // odometer, last dim fastest
          if (++idx[k] < sizes[k]) break;
          idx[k] = 0;
        }
      }
      const bool dense = static_cast<int64_t>(offsets.size()) == numel &&
                         (numel == 0 || (*offsets.begin() == 0 && *offsets.rbegin() == numel - 1));
      CAPTURE(sizes, strides);
      REQUIRE(SizesAndStrides::is_contiguous(sizes, strides) == row_major);
      REQUIRE(SizesAndStrides::is_non_overlapping_and_dense(sizes, strides) == dense);
      ++checked;
    };
    over_sizes = [&](std::size_t d) {
      if (d == rank) return over_strides(0);
      for (int64_t s : size_choices) {
        sizes[d] = s;
        over_sizes(d + 1);
      }
    };
    over_sizes(0);
  }
  CHECK(checked == 1 + 4 * 8 + 16 * 64 + 64 * 512);
}

}  // namespace core_sizes_and_strides_test
