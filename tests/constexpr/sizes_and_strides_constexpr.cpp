// Compile-time proof that ArrayRef and SizesAndStrides are usable in constant expressions,
// heap-backed ranks included (C++20 transient allocation: every `new[]` must be freed before the
// evaluation ends, which the compiler checks, so these also prove the destructor frees exactly
// what was allocated). Nothing here runs; compiling is the test.
#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/sizes_and_strides.hpp>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

using tensorplay::ArrayRef;
using tensorplay::IntArrayRef;
using tensorplay::SizesAndStrides;
using V = std::vector<int64_t>;

// ---- ArrayRef ---------------------------------------------------------------------------------

constexpr int64_t kRaw[] = {2, 3, 4};
constexpr std::array<int64_t, 2> kArr{5, 6};
constexpr int64_t kOne = 9;

static_assert(IntArrayRef().empty());
static_assert(IntArrayRef().data() == nullptr);
static_assert(IntArrayRef(kRaw).size() == 3);
static_assert(IntArrayRef(kRaw, 2).size() == 2);
static_assert(IntArrayRef(kRaw, kRaw + 3).back() == 4);
static_assert(IntArrayRef(kArr)[1] == 6);
static_assert(IntArrayRef(kOne).size() == 1 && IntArrayRef(kOne).front() == 9);
static_assert(IntArrayRef(kRaw).at(1) == 3);
static_assert(IntArrayRef(kRaw).front() == 2);
static_assert(IntArrayRef(kRaw).slice(1).front() == 3);
static_assert(IntArrayRef(kRaw).slice(1, 1).size() == 1);
static_assert(IntArrayRef(kRaw).slice(3).empty());
static_assert(IntArrayRef(kRaw).end() - IntArrayRef(kRaw).begin() == 3);
static_assert(*IntArrayRef(kRaw).rbegin() == 4);
static_assert(IntArrayRef(kRaw).slice(0, 2).equals(IntArrayRef(kRaw, 2)));
static_assert(IntArrayRef(kRaw) == IntArrayRef(kRaw, 3));
static_assert(IntArrayRef(kRaw) != IntArrayRef(kRaw, 2));
static_assert(IntArrayRef(kArr) != IntArrayRef(kRaw));

// A braced list at a call site, the `empty({2, 3})` pattern.
constexpr int64_t numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}
static_assert(numel({2, 3, 4}) == 24);
static_assert(numel({}) == 1);
static_assert(numel(7) == 7);

// vec() and comparison with std::vector, transient allocation.
static_assert(IntArrayRef(kRaw).vec() == V{2, 3, 4});
static_assert(IntArrayRef(kRaw) == V{2, 3, 4});
static_assert(V{2, 3, 4} == IntArrayRef(kRaw));
static_assert(IntArrayRef(kRaw) != V{2, 3});

constexpr bool view_of_vector() {
  V v{1, 2, 3};
  IntArrayRef r = v;
  v[0] = 10;  // a view sees the change
  return r.front() == 10 && r.data() == v.data();
}
static_assert(view_of_vector());

// ---- SizesAndStrides: inline state, including constexpr variables ---------------------------

constexpr SizesAndStrides kDefault{};
static_assert(kDefault.size() == 1);
static_assert(kDefault.size_at(0) == 0 && kDefault.stride_at(0) == 1);
static_assert(kDefault.sizes_arrayref() == V{0});
static_assert(kDefault.strides_arrayref() == V{1});
static_assert(sizeof(SizesAndStrides) ==
              sizeof(std::size_t) + 2 * SizesAndStrides::kInlineSize * sizeof(int64_t));

constexpr SizesAndStrides make(IntArrayRef sizes, IntArrayRef strides) {
  SizesAndStrides s;
  s.set_sizes(sizes);
  s.set_strides(strides);
  return s;
}
constexpr SizesAndStrides kMatrix = make({2, 3}, {3, 1});
static_assert(kMatrix.size() == 2 && kMatrix.size_at(1) == 3 && kMatrix.stride_at(0) == 3);
static_assert(kMatrix.sizes_end() - kMatrix.sizes_begin() == 2);
static_assert(kMatrix == make({2, 3}, {3, 1}));
static_assert(!(kMatrix == make({2, 3}, {1, 2})));

// ---- SizesAndStrides: heap transitions inside one evaluation ---------------------------------

constexpr bool resize_to_8_and_back() {
  SizesAndStrides s;
  s.resize(3);
  for (std::size_t d = 0; d < 3; ++d) {
    s.size_at(d) = static_cast<int64_t>(d) + 1;
    s.stride_at(d) = static_cast<int64_t>(d) + 10;
  }
  s.resize(8);  // inline -> heap
  bool ok = s.size() == 8 && s.sizes_arrayref() == V{1, 2, 3, 0, 0, 0, 0, 0} &&
            s.strides_arrayref() == V{10, 11, 12, 0, 0, 0, 0, 0};
  s.size_at(7) = 8;
  s.stride_at(7) = 80;
  s.resize(6);  // heap -> heap
  ok = ok && s.sizes_arrayref() == V{1, 2, 3, 0, 0, 0} &&
       s.strides_arrayref() == V{10, 11, 12, 0, 0, 0};
  s.resize(2);  // heap -> inline, frees the block
  ok = ok && s.sizes_arrayref() == V{1, 2} && s.strides_arrayref() == V{10, 11};
  s.resize(0);
  s.resize(5);  // inline growth exposes zeros
  ok = ok && s.sizes_arrayref() == V{0, 0, 0, 0, 0};
  s.resize(9);  // ends on the heap: the destructor must free it
  return ok && s.size() == 9;
}
static_assert(resize_to_8_and_back());

constexpr bool every_transition() {
  for (std::size_t from = 0; from <= 8; ++from) {
    for (std::size_t to = 0; to <= 8; ++to) {
      SizesAndStrides s;
      s.resize(from);
      for (std::size_t d = 0; d < from; ++d) {
        s.size_at_unchecked(d) = static_cast<int64_t>(d) + 1;
        s.stride_at_unchecked(d) = -static_cast<int64_t>(d) - 1;
      }
      s.resize(to);
      if (s.size() != to) return false;
      for (std::size_t d = 0; d < to; ++d) {
        const int64_t size = d < from ? static_cast<int64_t>(d) + 1 : 0;
        const int64_t stride = d < from ? -static_cast<int64_t>(d) - 1 : 0;
        if (s.size_at(d) != size || s.stride_at(d) != stride) return false;
      }
    }
  }
  return true;
}
static_assert(every_transition());

constexpr bool copies_and_moves_of_heap_ones() {
  SizesAndStrides heap = make({1, 2, 3, 4, 5, 6, 7}, {7, 6, 5, 4, 3, 2, 1});
  SizesAndStrides copy(heap);  // heap copy construction
  bool ok = copy == heap && copy.sizes_data() != heap.sizes_data();
  copy.size_at(0) = 100;
  ok = ok && heap.size_at(0) == 1;

  SizesAndStrides small = make({2, 3}, {3, 1});
  small = heap;  // inline <- heap
  ok = ok && small == heap;
  SizesAndStrides other = make({1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1});
  other = heap;  // heap <- heap of another rank
  ok = ok && other == heap;
  other = kMatrix;  // heap <- inline, frees
  ok = ok && other == kMatrix;

  const int64_t* block = heap.sizes_data();
  SizesAndStrides moved(std::move(heap));  // steals the block
  ok = ok && moved.sizes_data() == block && heap.size() == 0;
  heap = std::move(moved);  // and back, into the moved-from one
  ok = ok && heap.sizes_data() == block && moved.size() == 0;
  moved = heap;  // a moved-from object is assignable
  SizesAndStrides& alias = moved;
  moved = alias;  // self-assignment keeps everything
  moved = std::move(alias);
  ok = ok && moved == heap && moved.sizes_arrayref() == V{1, 2, 3, 4, 5, 6, 7};

  // set_sizes from a view of itself that the relayout frees.
  moved.set_sizes(moved.sizes_arrayref().slice(2));
  ok = ok && moved.sizes_arrayref() == V{3, 4, 5, 6, 7} &&
       moved.strides_arrayref() == V{7, 6, 5, 4, 3};
  return ok;
}
static_assert(copies_and_moves_of_heap_ones());

// ---- Shape arithmetic -----------------------------------------------------------------------

static_assert(SizesAndStrides::compute_contiguous_strides({2, 3, 4}) == V{12, 4, 1});
static_assert(SizesAndStrides::compute_contiguous_strides({2, 0}) == V{1, 1});
static_assert(SizesAndStrides::compute_contiguous_strides({0, 3}) == V{3, 1});
static_assert(SizesAndStrides::compute_contiguous_strides({}).empty());
static_assert(SizesAndStrides::compute_contiguous_strides({2, 2, 2, 2, 2, 2, 2}) ==
              V{64, 32, 16, 8, 4, 2, 1});

static_assert(SizesAndStrides::is_contiguous({}, {}));
static_assert(SizesAndStrides::is_contiguous({2, 3}, {3, 1}));
static_assert(!SizesAndStrides::is_contiguous({2, 3}, {1, 2}));
static_assert(SizesAndStrides::is_contiguous({2, 1, 3}, {3, 99, 1}));
static_assert(SizesAndStrides::is_contiguous({2, 0}, {0, 0}));
static_assert(!SizesAndStrides::is_contiguous({2, 3}, {0, 1}));

static_assert(SizesAndStrides::is_non_overlapping_and_dense({2, 3}, {3, 1}));
static_assert(SizesAndStrides::is_non_overlapping_and_dense({2, 3}, {1, 2}));   // transposed
static_assert(!SizesAndStrides::is_non_overlapping_and_dense({2, 3}, {0, 1}));  // expanded
static_assert(!SizesAndStrides::is_non_overlapping_and_dense({2, 3}, {6, 2}));  // gaps
static_assert(!SizesAndStrides::is_non_overlapping_and_dense({5}, {2}));
static_assert(SizesAndStrides::is_non_overlapping_and_dense({1}, {5}));
static_assert(SizesAndStrides::is_non_overlapping_and_dense({2, 3, 5, 4}, {60, 1, 12, 3}));
static_assert(SizesAndStrides::is_non_overlapping_and_dense({2, 2, 2, 2, 2, 2},
                                                            {1, 2, 4, 8, 16, 32}));  // heap perm
static_assert(!SizesAndStrides::is_non_overlapping_and_dense({2, 2, 2, 2, 2, 2},
                                                             {1, 2, 4, 8, 16, 64}));

// The stored strides of a contiguous layout, checked through the container.
constexpr bool contiguous_container() {
  SizesAndStrides s;
  s.set_sizes({4, 1, 3, 2, 2, 5, 6});
  s.set_strides(SizesAndStrides::compute_contiguous_strides(s.sizes_arrayref()));
  return s.strides_arrayref() == V{360, 360, 120, 60, 30, 6, 1} &&
         SizesAndStrides::is_contiguous(s.sizes_arrayref(), s.strides_arrayref()) &&
         SizesAndStrides::is_non_overlapping_and_dense(s.sizes_arrayref(), s.strides_arrayref());
}
static_assert(contiguous_container());

}  // namespace
