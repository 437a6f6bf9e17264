// Property test of the view family: random chains of view ops on random shapes, checked element
// by element against a naive reference after every step.
//
// The reference knows nothing of strides or storage. It holds a shape and the row-major list of
// what each element is, and every op builds the new list by index mapping from the old one.
// Its elements are the flat indices of the base tensor's elements (the base holds 0, 1, 2, ...),
// so after a chain the reference also says which base element each view element aliases, and a
// write through the view can be checked against the base. It shares no code with the library:
// shapes are std::vectors, dims are wrapped and bounds clamped here from scratch.
#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/views.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace ops_views_property_test {

using namespace tensorplay;

namespace {

using Shape = std::vector<int64_t>;

// ---- The reference -----------------------------------------------------------------------------

struct Ref {
  Shape shape;
  std::vector<int64_t> elems;  // row-major; each is a flat index into the base
};

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// Calls f(multi_index, row_major_position) for every element of `shape`.
void for_each_index(const Shape& shape, const std::function<void(const Shape&, int64_t)>& f) {
  const int64_t n = count(shape);
  Shape idx(shape.size(), 0);
  for (int64_t pos = 0; pos < n; ++pos) {
    f(idx, pos);
    for (auto d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

int64_t row_major_pos(const Shape& shape, const Shape& idx) {
  int64_t pos = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) pos = pos * shape[d] + idx[d];
  return pos;
}

// New tensor of `shape` whose element at idx is old's element at from(idx).
Ref gather(const Ref& old, const Shape& shape, const std::function<Shape(const Shape&)>& from) {
  Ref out{shape, std::vector<int64_t>(static_cast<std::size_t>(count(shape)))};
  for_each_index(shape, [&](const Shape& idx, int64_t pos) {
    out.elems[pos] = old.elems[row_major_pos(old.shape, from(idx))];
  });
  return out;
}

Ref ref_reshape(const Ref& r, const Shape& shape) { return Ref{shape, r.elems}; }

Ref ref_permute(const Ref& r, const Shape& perm) {  // result dim i is input dim perm[i]
  Shape shape(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) shape[i] = r.shape[perm[i]];
  return gather(r, shape, [&](const Shape& idx) {
    Shape src(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) src[perm[i]] = idx[i];
    return src;
  });
}

// The positions a Python-style positive-step slice takes along a dim of size n.
std::vector<int64_t> slice_positions(int64_t n, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;  // still before the first element: the walk starts at 0
  std::vector<int64_t> out;
  for (int64_t k = 0; k < n; ++k) {
    if (k >= start && k < end && (k - start) % step == 0) out.push_back(k);
  }
  return out;
}

Ref ref_take(const Ref& r, int64_t dim, const std::vector<int64_t>& positions) {
  Shape shape = r.shape;
  shape[dim] = static_cast<int64_t>(positions.size());
  return gather(r, shape, [&](const Shape& idx) {
    Shape src = idx;
    src[dim] = positions[idx[dim]];
    return src;
  });
}

Ref ref_select(const Ref& r, int64_t dim, int64_t i) {
  Shape shape = r.shape;
  shape.erase(shape.begin() + dim);
  return gather(r, shape, [&](const Shape& idx) {
    Shape src = idx;
    src.insert(src.begin() + dim, i);
    return src;
  });
}

Ref ref_expand(const Ref& r, const Shape& target) {
  const std::size_t lead = target.size() - r.shape.size();
  return gather(r, target, [&](const Shape& idx) {
    Shape src(r.shape.size());
    for (std::size_t d = 0; d < r.shape.size(); ++d) {
      src[d] = r.shape[d] == 1 ? 0 : idx[d + lead];
    }
    return src;
  });
}

Ref ref_diagonal(const Ref& r, int64_t off, int64_t d1, int64_t d2) {
  Shape shape;
  for (std::size_t d = 0; d < r.shape.size(); ++d) {
    if (static_cast<int64_t>(d) != d1 && static_cast<int64_t>(d) != d2) shape.push_back(r.shape[d]);
  }
  // Count the (i, j) with j - i == off inside the plane.
  int64_t len = 0;
  for (int64_t i = 0; i < r.shape[d1]; ++i) {
    if (i + off >= 0 && i + off < r.shape[d2]) ++len;
  }
  shape.push_back(len);
  const int64_t i0 = off < 0 ? -off : 0;
  return gather(r, shape, [&](const Shape& idx) {
    Shape src(r.shape.size());
    std::size_t k = 0;
    for (std::size_t d = 0; d < r.shape.size(); ++d) {
      if (static_cast<int64_t>(d) == d1 || static_cast<int64_t>(d) == d2) continue;
      src[d] = idx[k++];
    }
    const int64_t t = idx.back();
    src[d1] = i0 + t;
    src[d2] = i0 + t + off;
    return src;
  });
}

Ref ref_unfold(const Ref& r, int64_t dim, int64_t size, int64_t step) {
  Shape shape = r.shape;
  shape[dim] = (r.shape[dim] - size) / step + 1;
  shape.push_back(size);
  return gather(r, shape, [&](const Shape& idx) {
    Shape src(idx.begin(), idx.end() - 1);
    src[dim] = idx[dim] * step + idx.back();
    return src;
  });
}

// ---- Reading the implementation ------------------------------------------------------------

// The base's flat index stored at each element of t, in row-major order (through t's strides).
std::vector<int64_t> read(const Tensor& t) {
  std::vector<int64_t> out;
  const float* p = t.data_ptr<float>();
  Shape shape = t.sizes().vec();
  for_each_index(shape, [&](const Shape& idx, int64_t) {
    int64_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
    out.push_back(static_cast<int64_t>(p[off]));
  });
  return out;
}

// ---- Random ops --------------------------------------------------------------------------------

struct Rng {
  std::mt19937_64 gen;
  int64_t uniform(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  }
  bool coin() { return uniform(0, 1) == 1; }
  // A dim of an n-dim tensor, sometimes spelled negatively.
  int64_t dim(int64_t n) {
    const int64_t d = uniform(0, n - 1);
    return coin() ? d - n : d;
  }
};

int64_t wrap(int64_t d, int64_t n) { return d < 0 ? d + n : d; }

std::string str(const Shape& s) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  return os.str() + ']';
}

// A random factorisation of n into `parts` sizes (n > 0), in random order.
Shape factorise(Rng& rng, int64_t n, int64_t parts) {
  Shape out(static_cast<std::size_t>(parts), 1);
  for (int64_t f = 2; n > 1;) {
    if (n % f == 0) {
      out[rng.uniform(0, parts - 1)] *= f;
      n /= f;
    } else {
      ++f;
    }
  }
  return out;
}

// Applies one random op to both sides; returns its description (empty when none applied).
std::string step(Rng& rng, Tensor& t, Ref& r, bool& copied) {
  const auto n = static_cast<int64_t>(r.shape.size());
  std::ostringstream what;
  switch (rng.uniform(0, 18)) {
    case 0: {  // select / [] / unbind
      if (n == 0) return {};
      const int64_t d = rng.dim(n), w = wrap(d, n);
      if (r.shape[w] == 0) return {};
      int64_t i = rng.uniform(0, r.shape[w] - 1);
      const int64_t spelled = rng.coin() ? i - r.shape[w] : i;
      const int64_t how = rng.uniform(0, 2);
      if (how == 0) {
        t = t.select(d, spelled);
      } else if (how == 1 && w == 0) {
        t = t[spelled];
      } else {
        t = t.unbind(d)[i];
      }
      r = ref_select(r, w, i);
      what << "select(" << d << ", " << spelled << ")";
      break;
    }
    case 1: {  // slice with clamped bounds
      if (n == 0) return {};
      const int64_t d = rng.dim(n), w = wrap(d, n), size = r.shape[w];
      const int64_t start = rng.uniform(-size - 2, size + 2),
                    end = rng.uniform(-size - 2, size + 2);
      const int64_t stp = rng.uniform(1, 3);
      t = t.slice(d, start, end, stp);
      r = ref_take(r, w, slice_positions(size, start, end, stp));
      what << "slice(" << d << ", " << start << ", " << end << ", " << stp << ")";
      break;
    }
    case 2: {  // narrow / split / chunk piece
      if (n == 0) return {};
      const int64_t d = rng.dim(n), w = wrap(d, n), size = r.shape[w];
      int64_t lo = 0, hi = 0;
      const int64_t how = rng.uniform(0, 2);
      if (how == 0) {
        lo = rng.uniform(0, size);
        hi = rng.uniform(lo, size);
        t = t.narrow(d, lo, hi - lo);
        what << "narrow(" << d << ", " << lo << ", " << hi - lo << ")";
      } else if (how == 1) {
        if (size == 0) return {};
        const int64_t ss = rng.uniform(1, size + 1);
        const auto pieces = t.split(ss, d);
        const int64_t k = rng.uniform(0, static_cast<int64_t>(pieces.size()) - 1);
        t = pieces[k];
        lo = std::min(size, k * ss);
        hi = std::min(size, lo + ss);
        what << "split(" << ss << ", " << d << ")[" << k << "]";
      } else {
        if (size == 0) return {};
        const int64_t c = rng.uniform(1, size + 1);
        const auto pieces = t.chunk(c, d);
        const int64_t per = (size + c - 1) / c;
        const int64_t k = rng.uniform(0, static_cast<int64_t>(pieces.size()) - 1);
        t = pieces[k];
        lo = k * per;
        hi = std::min(size, lo + per);
        what << "chunk(" << c << ", " << d << ")[" << k << "]";
      }
      std::vector<int64_t> pos;
      for (int64_t k = lo; k < hi; ++k) pos.push_back(k);
      r = ref_take(r, w, pos);
      break;
    }
    case 3: {  // transpose / swapdims / t / mT
      if (n == 0) return {};
      int64_t a = rng.dim(n), b = rng.dim(n);
      const int64_t how = rng.uniform(0, 3);
      if (how == 2 && n <= 2) {
        t = t.t();
        a = 0;
        b = n < 2 ? 0 : 1;
      } else if (how == 3 && n >= 2) {
        t = t.mT();
        a = -2;
        b = -1;
      } else {
        t = how == 1 ? t.swapdims(a, b) : t.transpose(a, b);
      }
      Shape perm(n);
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      std::swap(perm[wrap(a, n)], perm[wrap(b, n)]);
      r = ref_permute(r, perm);
      what << "transpose(" << a << ", " << b << ")";
      break;
    }
    case 4: {  // permute
      Shape perm(n);
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng.gen);
      Shape spelled = perm;
      for (auto& p : spelled) p = rng.coin() ? p - n : p;
      t = t.permute(spelled);
      r = ref_permute(r, perm);
      what << "permute(" << str(spelled) << ")";
      break;
    }
    case 5: {  // movedim
      if (n == 0) return {};
      const int64_t k = rng.uniform(0, n);
      Shape dims(n);
      for (int64_t i = 0; i < n; ++i) dims[i] = i;
      std::shuffle(dims.begin(), dims.end(), rng.gen);
      Shape src(dims.begin(), dims.begin() + k);
      std::shuffle(dims.begin(), dims.end(), rng.gen);
      Shape dst(dims.begin(), dims.begin() + k);
      t = t.movedim(src, dst);
      // Reference: place each source dim at its destination, fill the rest in order.
      Shape perm(n, -1);
      std::vector<bool> used(n, false);
      for (int64_t i = 0; i < k; ++i) {
        perm[dst[i]] = src[i];
        used[src[i]] = true;
      }
      int64_t next = 0;
      for (int64_t slot = 0; slot < n; ++slot) {
        if (perm[slot] != -1) continue;
        while (used[next]) ++next;
        perm[slot] = next++;
      }
      r = ref_permute(r, perm);
      what << "movedim(" << str(src) << ", " << str(dst) << ")";
      break;
    }
    case 6:
    case 7: {  // view / reshape / view_as / reshape_as to a random regrouping
      const int64_t total = count(r.shape);
      const int64_t rank = rng.uniform(0, 6);
      Shape target;
      if (total == 0) {
        if (rank == 0) return {};
        target = factorise(rng, rng.uniform(1, 6), rank);
        target[rng.uniform(0, rank - 1)] = 0;
      } else {
        if (rank == 0 && total != 1) return {};
        target = rank == 0 ? Shape{} : factorise(rng, total, rank);
      }
      Shape spelled = target;
      if (total != 0 && rank > 0 && rng.coin()) spelled[rng.uniform(0, rank - 1)] = -1;
      if (rng.coin()) {
        try {
          t = t.view(IntArrayRef(spelled));
          what << "view(" << str(spelled) << ")";
        } catch (const Error& e) {
          // Not viewable: that may only happen to a non-contiguous tensor.
          REQUIRE_FALSE(t.is_contiguous());
          REQUIRE(std::string(e.what()).find("view size is not compatible") == 0);
          t = t.reshape(spelled);
          what << "reshape(" << str(spelled) << ") after view failed";
        }
      } else {
        t = t.reshape(spelled);
        what << "reshape(" << str(spelled) << ")";
      }
      if (!t.is_view()) copied = true;
      r = ref_reshape(r, target);
      break;
    }
    case 8: {  // flatten
      if (n == 0) {
        t = t.flatten();
        r = ref_reshape(r, {1});
        what << "flatten()";
        break;
      }
      int64_t a = rng.uniform(0, n - 1), b = rng.uniform(0, n - 1);
      if (a > b) std::swap(a, b);
      t = t.flatten(rng.coin() ? a - n : a, rng.coin() ? b - n : b);
      if (a != b && !t.is_view()) copied = true;
      Shape shape;
      for (int64_t d = 0; d < n; ++d) {
        if (d <= a || d > b)
          shape.push_back(r.shape[d]);
        else
          shape.back() *= r.shape[d];
      }
      r = ref_reshape(r, shape);
      what << "flatten(" << a << ", " << b << ")";
      break;
    }
    case 9: {  // unflatten
      if (n == 0) return {};
      const int64_t d = rng.dim(n), w = wrap(d, n), size = r.shape[w];
      if (size == 0) return {};
      Shape parts = factorise(rng, size, rng.uniform(1, 3));
      Shape spelled = parts;
      if (rng.coin()) spelled[rng.uniform(0, static_cast<int64_t>(parts.size()) - 1)] = -1;
      t = t.unflatten(d, spelled);
      Shape shape = r.shape;
      shape.erase(shape.begin() + w);
      shape.insert(shape.begin() + w, parts.begin(), parts.end());
      r = ref_reshape(r, shape);
      what << "unflatten(" << d << ", " << str(spelled) << ")";
      break;
    }
    case 10: {  // squeeze, all / one / list
      const int64_t how = rng.uniform(0, 2);
      Shape shape;
      if (how == 0) {
        t = t.squeeze();
        for (int64_t s : r.shape) {
          if (s != 1) shape.push_back(s);
        }
        what << "squeeze()";
      } else if (how == 1 || n == 0) {
        const int64_t d = n == 0 ? (rng.coin() ? 0 : -1) : rng.dim(n);
        t = t.squeeze(d);
        shape = r.shape;
        if (n > 0 && shape[wrap(d, n)] == 1) shape.erase(shape.begin() + wrap(d, n));
        what << "squeeze(" << d << ")";
      } else {
        Shape dims;
        std::vector<bool> listed(n, false);
        for (int64_t d = 0; d < n; ++d) {
          if (rng.coin()) {
            dims.push_back(rng.coin() ? d - n : d);
            listed[d] = true;
          }
        }
        std::shuffle(dims.begin(), dims.end(), rng.gen);
        t = t.squeeze(IntArrayRef(dims));
        for (int64_t d = 0; d < n; ++d) {
          if (!(listed[d] && r.shape[d] == 1)) shape.push_back(r.shape[d]);
        }
        what << "squeeze(" << str(dims) << ")";
      }
      r = ref_reshape(r, shape);
      break;
    }
    case 11: {  // unsqueeze
      if (n >= 7) return {};
      const int64_t d = rng.uniform(-(n + 1), n);
      t = t.unsqueeze(d);
      Shape shape = r.shape;
      shape.insert(shape.begin() + wrap(d, n + 1), 1);
      r = ref_reshape(r, shape);
      what << "unsqueeze(" << d << ")";
      break;
    }
    case 12: {  // expand / expand_as
      if (n >= 6) return {};
      const int64_t lead = rng.uniform(0, 2);
      Shape target, spelled;
      for (int64_t i = 0; i < lead; ++i) {
        target.push_back(rng.uniform(0, 3));
        spelled.push_back(target.back());
      }
      for (int64_t s : r.shape) {
        const int64_t tgt = s == 1 ? rng.uniform(0, 3) : s;
        target.push_back(tgt);
        spelled.push_back(tgt == s && rng.coin() ? -1 : tgt);
      }
      if (count(target) > 400) return {};
      if (rng.coin()) {
        t = t.expand(spelled);
      } else {
        t = t.expand_as(tensorplay::empty(target));
        spelled = target;
      }
      r = ref_expand(r, target);
      what << "expand(" << str(spelled) << ")";
      break;
    }
    case 13: {  // diagonal
      if (n < 2) return {};
      const int64_t a = rng.dim(n);
      int64_t b = rng.dim(n);
      if (wrap(a, n) == wrap(b, n)) return {};
      const int64_t off = rng.uniform(-4, 4);
      t = t.diagonal(off, a, b);
      r = ref_diagonal(r, off, wrap(a, n), wrap(b, n));
      what << "diagonal(" << off << ", " << a << ", " << b << ")";
      break;
    }
    case 14: {  // unfold
      if (n == 0 || n >= 6) return {};
      const int64_t d = rng.dim(n), w = wrap(d, n);
      const int64_t size = rng.uniform(0, r.shape[w]), stp = rng.uniform(1, 3);
      t = t.unfold(d, size, stp);
      r = ref_unfold(r, w, size, stp);
      what << "unfold(" << d << ", " << size << ", " << stp << ")";
      break;
    }
    case 15: {  // alias / as_strided of the same geometry / view(same dtype)
      const int64_t how = rng.uniform(0, 2);
      if (how == 0) {
        t = t.alias();
      } else if (how == 1) {
        t = t.as_strided(t.sizes(), t.strides());
      } else {
        t = t.view(kFloat);
      }
      what << (how == 0 ? "alias()" : how == 1 ? "as_strided(same)" : "view(kFloat)");
      break;
    }
    case 16: {  // the in-place forms, on a fresh alias
      Tensor u = t.alias();
      Shape perm(n);
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      if (n >= 2 && rng.coin()) {
        const int64_t a = rng.dim(n), b = rng.dim(n);
        u.transpose_(a, b);
        std::swap(perm[wrap(a, n)], perm[wrap(b, n)]);
        r = ref_permute(r, perm);
        what << "transpose_(" << a << ", " << b << ")";
      } else if (n < 6) {
        const int64_t d = rng.uniform(-(n + 1), n);
        u.unsqueeze_(d);
        Shape shape = r.shape;
        shape.insert(shape.begin() + wrap(d, n + 1), 1);
        r = ref_reshape(r, shape);
        what << "unsqueeze_(" << d << ")";
      } else {
        u.squeeze_();
        Shape shape;
        for (int64_t s : r.shape) {
          if (s != 1) shape.push_back(s);
        }
        r = ref_reshape(r, shape);
        what << "squeeze_()";
      }
      t = u;
      break;
    }
    case 17: {  // view_as / reshape_as a same-shaped tensor
      const Tensor like = tensorplay::empty(r.shape);
      t = rng.coin() ? t.reshape_as(like) : t.view_as(like);
      what << "view_as";
      break;
    }
    default: {  // moveaxis with single ints
      if (n == 0) return {};
      const int64_t a = rng.dim(n), b = rng.dim(n);
      t = t.moveaxis(a, b);
      Shape rest;
      for (int64_t d = 0; d < n; ++d) {
        if (d != wrap(a, n)) rest.push_back(d);
      }
      rest.insert(rest.begin() + wrap(b, n), wrap(a, n));
      r = ref_permute(r, rest);
      what << "moveaxis(" << a << ", " << b << ")";
      break;
    }
  }
  return what.str();
}

}  // namespace

TEST_CASE("random chains of view ops match a materialising reference", "[ops][views]") {
  Rng rng{std::mt19937_64(20240601)};
  constexpr int kChains = 2000;
  constexpr int kMaxOps = 8;
  int64_t checked_elements = 0, aliased_writes = 0;

  for (int chain = 0; chain < kChains; ++chain) {
    // A random base of rank 0..6 with sizes 0..4 (zero-size dims included), at most 720
    // elements, holding 0, 1, 2, ... so every element names itself.
    Shape shape(static_cast<std::size_t>(rng.uniform(0, 6)));
    for (auto& s : shape) s = rng.uniform(0, 4) == 0 ? rng.uniform(0, 1) : rng.uniform(1, 4);
    if (count(shape) > 720) continue;
    Tensor base = tensorplay::empty(shape);
    Ref r{shape, {}};
    for (int64_t i = 0; i < count(shape); ++i) {
      base.data_ptr<float>()[i] = static_cast<float>(i);
      r.elems.push_back(i);
    }

    Tensor t = base;
    bool copied = false;  // a reshape that copied ends the aliasing with the base
    std::ostringstream history;
    history << "base " << str(shape);
    const int ops = static_cast<int>(rng.uniform(1, kMaxOps));
    for (int k = 0; k < ops; ++k) {
      const std::string what = step(rng, t, r, copied);
      if (what.empty()) continue;
      history << " . " << what;
      INFO(history.str());
      REQUIRE(t.sizes().vec() == r.shape);
      REQUIRE(read(t) == r.elems);
      checked_elements += static_cast<int64_t>(r.elems.size());
      if (!copied) {
        REQUIRE(t.is_alias_of(base));
      }
    }

    // A write through the final view reaches exactly the base element the reference names,
    // and shows at every view element that aliases it (expanded dims repeat one element).
    if (!copied && !r.elems.empty()) {
      INFO(history.str());
      const int64_t pos = rng.uniform(0, static_cast<int64_t>(r.elems.size()) - 1);
      const int64_t target = r.elems[pos];
      Shape idx(r.shape.size());
      for (int64_t p = pos, d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
        idx[d] = p % r.shape[d];
        p /= r.shape[d];
      }
      int64_t off = 0;
      for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
      t.data_ptr<float>()[off] = -1.f;
      CHECK(base.data_ptr<float>()[target] == -1.f);
      const std::vector<int64_t> seen = read(t);
      for (std::size_t e = 0; e < seen.size(); ++e) {
        CHECK((seen[e] == -1) == (r.elems[e] == target));
      }
      ++aliased_writes;
    }
  }
  // The generator must actually exercise the ops (guards against a vacuous pass).
  CHECK(checked_elements > 100000);
  CHECK(aliased_writes > 500);
}

}  // namespace ops_views_property_test
