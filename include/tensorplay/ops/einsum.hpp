// einsum (ATen's at::einsum in Linear.cpp, torch 1.13): PyTorch's subscript grammar (letters
// a-zA-Z, spaces ignored, one `...` per operand and in the output, implicit output = the
// ellipsis then the letters that appear once, in sorted order with upper case first), its checks
// and messages. Operands are aligned to one dimension order (output dims, then summed dims),
// repeated subscripts taken as diagonals (a view), then contracted pairwise by sumproduct_pair:
// permute + reshape to [batch, left, sum] x [batch, sum, right] and one bmm. Everything is built
// from differentiable ops (diagonal, permute, reshape, view, sum, mul, bmm), so einsum has no
// node of its own: its gradient is theirs, as in PyTorch.
//
// Contraction order. torch 1.13 contracts left to right unless the opt_einsum package is
// installed, when it asks opt_einsum for a path (greedy by default). We always take the greedy
// choice ourselves, as opt_einsum's 'greedy' does: among the pairs of operands that share a
// dimension, the one whose result is smallest relative to its inputs (size(result) - size(a) -
// size(b)), ties to the leftmost pair; when no pair shares a dimension, the outer product with
// the smallest result. For two operands there is one choice and the result is torch's exactly;
// for more, values agree up to the rounding of a different summation order.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::einsum_impl {

inline constexpr int kLetters = 26;
inline constexpr int kLabels = 2 * kLetters;
inline constexpr int kEllipsis = kLabels;  // the code of `...` in an operand's label list

constexpr bool is_subscript(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Upper case first, as PyTorch numbers them (so the implicit output sorts 'B' before 'a').
constexpr int label_to_subscript(char c) { return c >= 'a' ? kLetters + (c - 'a') : c - 'A'; }
constexpr char subscript_to_label(int s) {
  return s < kLetters ? char('A' + s) : char('a' + (s - kLetters));
}

// left * right summed over sum_dims (keepdim), both with the same number of dimensions, each of
// size 1 where the operand lacks it. ATen's sumproduct_pair: dimensions are sorted into those
// of both operands kept in the output (the bmm batch), of left only, summed, and of right only;
// a summed dimension present in one operand alone is summed before the product.
template <class = void>
Tensor sumproduct_pair(const Tensor& left_in, const Tensor& right_in, IntArrayRef sum_dims) {
  if (sum_dims.empty()) return left_in.mul(right_in);
  const int64_t ndim = left_in.dim();
  std::vector<bool> summed(std::size_t(ndim), false);
  for (const int64_t d : sum_dims) summed[std::size_t(d)] = true;
  Tensor left = left_in, right = right_in;
  std::vector<int64_t> lro, lo, ro, sums;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    const bool sl = left.size(i) != 1, sr = right.size(i) != 1;
    if (summed[std::size_t(i)]) {
      if (sl && sr) {
        sum_size *= left.size(i);
      } else if (sl) {
        left = left.sum({i}, true);
      } else if (sr) {
        right = right.sum({i}, true);
      }
      sums.push_back(i);
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size *= left.size(i);
    } else if (sl) {
      lo.push_back(i);
      lo_size *= left.size(i);
    } else {
      ro.push_back(i);
      ro_size *= right.size(i);
    }
  }
  // left: [lro, lo, sum] and right: [lro, sum, ro] flattened to three dimensions each; the bmm
  // result viewed as [lro, lo, 1 per summed dim, ro] and permuted back to the common order.
  std::vector<int64_t> out_size, lperm, rperm, operm(std::size_t(ndim), -1);
  auto append = [](std::vector<int64_t>& to, const std::vector<int64_t>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  for (const int64_t d : lro) out_size.push_back(left.size(d));
  for (const int64_t d : lo) out_size.push_back(left.size(d));
  for (std::size_t k = 0; k < sums.size(); ++k) out_size.push_back(1);
  for (const int64_t d : ro) out_size.push_back(right.size(d));
  append(lperm, lro), append(lperm, lo), append(lperm, sums), append(lperm, ro);
  append(rperm, lro), append(rperm, sums), append(rperm, ro), append(rperm, lo);
  for (std::size_t k = 0; k < lperm.size(); ++k) operm[std::size_t(lperm[k])] = int64_t(k);
  left = left.permute(lperm).reshape({lro_size, lo_size, sum_size});
  right = right.permute(rperm).reshape({lro_size, sum_size, ro_size});
  return bmm(left, right).view(out_size).permute(operm);
}

// The pair of operands to contract next (see the header comment): dims [0, out_dims) are
// output dimensions, dim_counts[d] the number of operands where d has a size other than 1.
template <class = void>
std::pair<std::size_t, std::size_t> greedy_pair(const std::vector<Tensor>& ops,
                                                const std::vector<int64_t>& dim_counts,
                                                int64_t out_dims) {
  if (ops.size() == 2) return {0, 1};
  std::pair<std::size_t, std::size_t> best{0, 1};
  bool best_shares = false;
  double best_cost = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t j = i + 1; j < ops.size(); ++j) {
      const Tensor &a = ops[i], &b = ops[j];
      bool shares = false;
      double result = 1;
      for (int64_t d = 0; d < a.dim(); ++d) {
        const bool ha = a.size(d) != 1, hb = b.size(d) != 1;
        shares = shares || (ha && hb);
        if (!ha && !hb) continue;
        const bool kept =
            d < out_dims || dim_counts[std::size_t(d)] - int64_t(ha) - int64_t(hb) > 0;
        if (kept) result *= double(ha ? a.size(d) : b.size(d));
      }
      const double cost = shares ? result - double(a.numel()) - double(b.numel()) : result;
      const bool first = i == 0 && j == 1;
      if (first || (shares && !best_shares) || (shares == best_shares && cost < best_cost)) {
        best = {i, j};
        best_shares = shares;
        best_cost = cost;
      }
    }
  }
  return best;
}

}  // namespace detail::einsum_impl

// libtorch's at::einsum(equation, tensors, path): path, when given, is opt_einsum's contraction
// list (pairs of positions in the list of remaining operands; the result goes to the end).
template <class = void>
Tensor einsum(std::string_view equation, TensorList operands,
              std::optional<IntArrayRef> path = std::nullopt) {
  using namespace detail::einsum_impl;
  TP_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  const std::size_t num_ops = operands.size();
  if (path.has_value()) {
    const std::size_t path_size = num_ops == 1 ? 1 : (num_ops - 1) * 2;
    TP_CHECK(path->size() == path_size,
             "einsum(): expected contraction path given in path parameter to have size ", path_size,
             " but got ", path->size());
  }

  // ---- parse the operands' subscripts
  const std::size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> op_labels(num_ops);
  bool found_ell = false;
  std::size_t curr_op = 0;
  for (std::size_t i = 0; i < lhs.size(); ++i) {
    const char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      TP_CHECK(!found_ell, "einsum(): found '.' for operand ", curr_op,
               " for which an ellipsis was already found");
      TP_CHECK(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.',
               "einsum(): found '.' for operand ", curr_op, " that is not part of any ellipsis");
      op_labels[curr_op].push_back(kEllipsis);
      found_ell = true;
    } else if (c == ',') {
      ++curr_op;
      TP_CHECK(curr_op < num_ops,
               "einsum(): fewer operands were provided than specified in the equation");
      found_ell = false;
    } else {
      TP_CHECK(is_subscript(c), "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      op_labels[curr_op].push_back(label_to_subscript(c));
    }
  }
  TP_CHECK(curr_op == num_ops - 1,
           "einsum(): more operands were provided than specified in the equation");

  // ---- label counts and the dimensions the ellipsis covers
  std::vector<int64_t> label_count(kLabels, 0);
  int64_t ell_num_dim = 0;
  for (std::size_t i = 0; i < num_ops; ++i) {
    const int64_t ndims = operands[i].dim();
    int64_t nlabels = int64_t(op_labels[i].size());
    bool has_ellipsis = false;
    for (const int s : op_labels[i]) {
      if (s == kEllipsis) {
        --nlabels;
        has_ellipsis = true;
        ell_num_dim = std::max(ell_num_dim, ndims - nlabels);
      } else {
        ++label_count[std::size_t(s)];
      }
    }
    TP_CHECK(has_ellipsis ? nlabels <= ndims : nlabels == ndims,
             "einsum(): the number of subscripts in the equation (", nlabels,
             has_ellipsis ? ") is more than the number of dimensions ("
                          : ") does not match the number of dimensions (",
             ndims, ") for operand ", i, has_ellipsis ? "" : " and no ellipsis was given");
  }

  // ---- the common order: output dimensions first, then those summed out
  std::vector<int64_t> label_perm_index(kLabels, -1);
  int64_t perm_index = 0, ell_index = 0;
  found_ell = false;
  if (arrow == std::string_view::npos) {
    perm_index = ell_num_dim;
    found_ell = true;
    for (int s = 0; s < kLabels; ++s) {
      if (label_count[std::size_t(s)] == 1) label_perm_index[std::size_t(s)] = perm_index++;
    }
  } else {
    const std::string_view rhs = equation.substr(arrow + 2);
    for (std::size_t i = 0; i < rhs.size(); ++i) {
      const char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        TP_CHECK(!found_ell,
                 "einsum(): found '.' for output but an ellipsis (...) was already found");
        TP_CHECK(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.',
                 "einsum(): found '.' for output that is not part of any ellipsis (...)");
        ell_index = perm_index;
        perm_index += ell_num_dim;
        found_ell = true;
        continue;
      }
      TP_CHECK(is_subscript(c), "einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      const auto s = std::size_t(label_to_subscript(c));
      TP_CHECK(label_count[s] > 0 && label_perm_index[s] == -1, "einsum(): output subscript ", c,
               label_perm_index[s] > -1 ? " appears more than once in the output"
                                        : " does not appear in the equation for any input operand");
      label_perm_index[s] = perm_index++;
    }
  }
  const int64_t out_num_dim = perm_index;
  if (!found_ell) {
    ell_index = perm_index;
    perm_index += ell_num_dim;
  }
  for (std::size_t s = 0; s < std::size_t(kLabels); ++s) {
    if (label_count[s] > 0 && label_perm_index[s] == -1) label_perm_index[s] = perm_index++;
  }

  // ---- check sizes, take diagonals, unsqueeze missing dims and permute to the common order
  std::vector<int64_t> label_size(kLabels, 1), ell_sizes(std::size_t(ell_num_dim), 1);
  std::vector<int64_t> dim_counts(std::size_t(perm_index), 0);
  std::vector<Tensor> ops;
  for (std::size_t i = 0; i < num_ops; ++i) {
    Tensor op = operands[i];
    std::vector<int64_t> permutation(std::size_t(perm_index), -1);
    int64_t dim = 0;
    for (const int s : op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t ndim = operands[i].dim() - (int64_t(op_labels[i].size()) - 1);
        for (int64_t j = ell_num_dim - ndim; j < ell_num_dim; ++j) {
          const int64_t size = op.size(dim);
          if (size != 1) {
            int64_t& seen = ell_sizes[std::size_t(j)];
            // "operand 1has" is PyTorch 1.13's wording, space missing and all.
            TP_CHECK(seen == 1 || seen == size, "einsum(): dimension ", dim,
                     " covered by ellipsis in operand ", i, "has size ", size,
                     " which does not broadcast with previously seen ellipsis with size ", seen,
                     " for the respective dimension");
            seen = size;
            ++dim_counts[std::size_t(ell_index + j)];
          }
          permutation[std::size_t(ell_index + j)] = dim++;
        }
        continue;
      }
      const auto p = std::size_t(label_perm_index[std::size_t(s)]);
      if (permutation[p] == -1) {
        const int64_t size = op.size(dim);
        if (size != 1) {
          int64_t& seen = label_size[std::size_t(s)];
          TP_CHECK(seen == 1 || seen == size, "einsum(): subscript ", subscript_to_label(s),
                   " has size ", size, " for operand ", i,
                   " which does not broadcast with previously seen size ", seen);
          seen = size;
          ++dim_counts[p];
        }
        permutation[p] = dim++;
      } else {
        // A repeated subscript: its diagonal, moved to where the first occurrence was.
        const int64_t prev = permutation[p];
        TP_CHECK(op.size(dim) == op.size(prev), "einsum(): subscript ", subscript_to_label(s),
                 " is repeated for operand ", i, " but the sizes don't match, ", op.size(dim),
                 " != ", op.size(prev));
        op = op.diagonal(0, prev, dim).movedim(-1, prev);
      }
    }
    for (int64_t& val : permutation) {
      if (val == -1) {
        op = op.unsqueeze(dim);
        val = dim++;
      }
    }
    ops.push_back(op.permute(permutation));
  }

  // ---- contract pairwise; the result of each step goes to the end of the list
  std::size_t step = 0;
  while (ops.size() > 1) {
    std::size_t i = 0, j = 1;
    if (path.has_value()) {
      const int64_t pi = (*path)[step++], pj = (*path)[step++];
      TP_CHECK(pi != pj && pi >= 0 && pj >= 0 && std::size_t(std::max(pi, pj)) < ops.size(),
               "einsum(): invalid contraction (", pi, ", ", pj,
               pi == pj ? ") cannot contract an operand with itself"
                        : ") operand index is out of bounds");
      i = std::size_t(std::min(pi, pj));
      j = std::size_t(std::max(pi, pj));
    } else {
      std::tie(i, j) = greedy_pair(ops, dim_counts, out_num_dim);
    }
    Tensor a = ops[i], b = ops[j];
    ops.erase(ops.begin() + std::ptrdiff_t(j));
    ops.erase(ops.begin() + std::ptrdiff_t(i));

    // Summed dimensions no other operand has are summed now: in the product when both have
    // them, in the one operand before it otherwise.
    std::vector<int64_t> sum_dims, a_dims, b_dims;
    for (int64_t d = out_num_dim; d < perm_index; ++d) {
      int64_t& count = dim_counts[std::size_t(d)];
      if (a.size(d) != 1 && b.size(d) != 1) {
        if (--count == 1) {
          sum_dims.push_back(d);
          count = 0;
        }
      } else if (count == 1) {
        if (a.size(d) != 1) {
          a_dims.push_back(d);
          count = 0;
        } else if (b.size(d) != 1) {
          b_dims.push_back(d);
          count = 0;
        }
      }
    }
    if (!a_dims.empty()) a = a.sum(a_dims, true);
    if (!b_dims.empty()) b = b.sum(b_dims, true);
    ops.push_back(sumproduct_pair(a, b, sum_dims));
  }

  // ---- drop the summed dimensions: size 1 already after contractions, summed for one operand
  if (perm_index > out_num_dim) {
    if (num_ops > 1) {
      std::vector<int64_t> sizes = ops[0].sizes().vec();
      sizes.resize(std::size_t(out_num_dim));
      return ops[0].view(sizes);
    }
    std::vector<int64_t> sum_dims;
    for (int64_t d = out_num_dim; d < perm_index; ++d) sum_dims.push_back(d);
    return ops[0].sum(sum_dims);
  }
  return ops[0];
}

}  // namespace tensorplay
