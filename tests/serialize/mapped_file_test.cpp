// Memory-mapped files (serialize/mapped_file.hpp, serialize/from_file.hpp) and read-only
// storages: lifetimes (the mapping outlives its handle while a tensor, view or storage lives),
// the three modes, the write refusals of read-only mappings through the one funnel
// (autograd::detail::check_inplace) for every kind of write, and from_file's torch semantics
// and messages (checked against torch 1.13's torch.from_file).
#include <tensorplay/serialize/from_file.hpp>
#include <tensorplay/serialize/mapped_file.hpp>

#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/indexing.hpp>
#include <tensorplay/ops/join.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/masked.hpp>
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/scatter_gather.hpp>
#include <tensorplay/ops/shape_ops.hpp>
#include <tensorplay/ops/softmax.hpp>
#include <tensorplay/ops/unary.hpp>
#include <tensorplay/ops/views.hpp>

#include <catch2/catch.hpp>

#include "serialize_test_util.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace serialize_mapped_file_test {

using namespace tensorplay;
using Catch::Matchers::Contains;

namespace {

using serialize_test::TempFile;

std::string floats_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// A float tensor of `n` elements on a mapping of `file` in `mode`.
Tensor mapped_floats(const TempFile& file, MapMode mode, int64_t n) {
  const MappedFile m = MappedFile::open(file.str(), mode);
  const Storage s = m.storage(0, static_cast<std::size_t>(n) * 4);
  return detail::make_tensor(s, kFloat, {n}, {1});
}

}  // namespace

TEST_CASE("MappedFile maps a file and keeps the mapping alive through storages", "[serialize]") {
  TempFile f("lifetime");
  f.write(floats_bytes({1, 2, 3, 4, 5, 6}));
  const int64_t before = MappedFile::live_mappings();
  Tensor view;
  {
    MappedFile m = MappedFile::open(f.str());
    CHECK(m.size() == 24);
    CHECK(m.read_only());
    CHECK(MappedFile::live_mappings() == before + 1);
    Tensor t = detail::make_tensor(m.storage(), kFloat, {2, 3}, {3, 1});
    CHECK(m.use_count() == 2);
    CHECK_FALSE(t.storage().resizable());
    CHECK(t.storage().read_only());
    view = t.select(1, 2);  // 3, 6
  }                         // the handle and the base tensor are gone
  CHECK(MappedFile::live_mappings() == before + 1);
  CHECK(view.index({0}).item<float>() == 3.0f);
  CHECK(view.index({1}).item<float>() == 6.0f);
  const Tensor copy = view.clone();
  CHECK(copy.is_contiguous());
  CHECK_FALSE(copy.storage().read_only());
  view = Tensor();
  CHECK(MappedFile::live_mappings() == before);  // unmapped with the last view
  CHECK(copy.index({1}).item<float>() == 6.0f);
}

TEST_CASE("MappedFile: a storage outlives the handle and is unmapped with the last user",
          "[serialize]") {
  TempFile f("storage_life");
  f.write("abcdefgh");
  const int64_t before = MappedFile::live_mappings();
  Storage s = MappedFile::open(f.str()).storage(2, 4);
  CHECK(MappedFile::live_mappings() == before + 1);
  CHECK(s.nbytes() == 4);
  CHECK(std::memcmp(s.data(), "cdef", 4) == 0);
  s = Storage();
  CHECK(MappedFile::live_mappings() == before);
}

TEST_CASE("MappedFile errors: missing file, directories, ranges, empty files", "[serialize]") {
  TempFile missing("missing");
  CHECK_THROWS_WITH(MappedFile::open(missing.str()),
                    "unable to open file <" + missing.str() +
                        "> in read-only mode: No such file or directory (2)");
  CHECK_THROWS_WITH(MappedFile::open(std::filesystem::temp_directory_path().string()),
                    Contains("unable to mmap") && Contains("No such device (19)"));
  TempFile f("ranges");
  f.write("0123456789");
  const MappedFile m = MappedFile::open(f.str());
  CHECK_THROWS_AS(m.storage(8, 3), IndexError);
  CHECK_THROWS_AS(m.storage(11, 0), IndexError);
  CHECK_THROWS_AS(m.storage(4, std::size_t(-1)), IndexError);  // no wrap-around
  CHECK(m.storage(10, 0).nbytes() == 0);
  CHECK_THROWS_WITH(MappedFile::open(f.str(), MapMode::CopyOnWrite, 11),
                    "file <" + f.str() + "> size is smaller than the required mapping size <11>");
  CHECK_THROWS_WITH(MappedFile().size(), "MappedFile: the handle is empty");

  // A zero-length file maps to nothing (mmap(0) would fail with EINVAL).
  TempFile e("empty");
  e.write("");
  const int64_t before = MappedFile::live_mappings();
  const MappedFile em = MappedFile::open(e.str());
  CHECK(em.size() == 0);
  CHECK(em.data() == nullptr);
  CHECK(MappedFile::live_mappings() == before);
  const Tensor t = detail::make_tensor(em.storage(), kFloat, {0}, {1});
  CHECK(t.numel() == 0);
}

TEST_CASE("MappedFile: resizing a mapped storage past its size is refused", "[serialize]") {
  TempFile f("resize");
  f.write(floats_bytes({1, 2, 3, 4}));
  for (MapMode mode : {MapMode::ReadOnly, MapMode::CopyOnWrite}) {
    Tensor t = mapped_floats(f, mode, 4);
    CHECK_THROWS_WITH(t.resize_({8}), "Trying to resize storage that is not resizable");
    t.resize_({2});  // shrinking the geometry needs no new bytes
    CHECK(t.numel() == 2);
  }
}

TEST_CASE("Read-only mappings refuse every write, through the tensor and through views",
          "[serialize]") {
  TempFile f("readonly");
  f.write(floats_bytes({1, 2, 3, 4, 5, 6}));
  const std::string expected = f.read();
  const Tensor base =
      detail::make_tensor(MappedFile::open(f.str()).storage(), kFloat, {2, 3}, {3, 1});
  const std::string msg =
      "cannot write to a read-only tensor: its storage is a read-only memory mapping (load it "
      "writable, or clone() it)";
  const Tensor idx = tensor(std::vector<int64_t>{0, 1}).view({1, 2});
  const Tensor mask = tensor(std::vector<bool>{true, false, true}).view({1, 3}).expand({2, 3});
  // The base, a row (a view), a transposed view and a detached alias: all share the storage.
  for (const Tensor& t : {base, base.select(0, 1), base.t(), base.detach()}) {
    INFO("sizes " << t.sizes());
    CHECK_THROWS_WITH(t.add_(1), msg);
    CHECK_THROWS_WITH(t.mul_(2), msg);
    CHECK_THROWS_WITH(mul_out(t, t.clone(), t.clone()), msg);
    CHECK_THROWS_WITH(add_out(t, t.clone(), 1), msg);
    CHECK_THROWS_WITH(t.copy_(zeros_like(t)), msg);
    CHECK_THROWS_WITH(t.fill_(0), msg);
    CHECK_THROWS_WITH(t.fill_(tensor(0.f)), msg);
    CHECK_THROWS_WITH(t.zero_(), msg);
    CHECK_THROWS_WITH(t.neg_(), msg);
    CHECK_THROWS_WITH(t.clamp_(0, 1), msg);
    CHECK_THROWS_WITH(t.index_put_({0}, 1), msg);
    CHECK_THROWS_WITH(t.index_put_({0}, tensor(7.f)), msg);
    CHECK_THROWS_WITH(t.index_put_({tensor(std::vector<int64_t>{0})}, tensor(7.f), true), msg);
    CHECK_THROWS_WITH(t.index_fill_(0, tensor(std::vector<int64_t>{0}), 1), msg);
    CHECK_THROWS_WITH(t.masked_fill_(t > 2, 0), msg);
    CHECK_THROWS_WITH(t.masked_fill_(t > 2, tensor(0.f)), msg);
    CHECK_THROWS_WITH(t.put_(tensor(std::vector<int64_t>{0}), tensor(std::vector<float>{9})), msg);
  }
  // scatter_ and friends need a rank-2 self.
  CHECK_THROWS_WITH(base.scatter_(1, idx, 0), msg);
  CHECK_THROWS_WITH(base.scatter_(1, idx, ones({1, 2})), msg);
  CHECK_THROWS_WITH(base.scatter_add_(1, idx, ones({1, 2})), msg);
  CHECK_THROWS_WITH(base.t().scatter_(0, idx.t(), 0), msg);
  CHECK_THROWS_WITH(base.masked_scatter_(mask, zeros({2, 3})), msg);
  CHECK_THROWS_WITH(base.index_copy_(0, tensor(std::vector<int64_t>{0}), zeros({1, 3})), msg);
  CHECK_THROWS_WITH(base.index_add_(0, tensor(std::vector<int64_t>{0}), zeros({1, 3})), msg);
  CHECK_THROWS_WITH(base.index({0}).index_put_({1}, 5), msg);  // a view made by indexing
  // out= forms of other op families (reductions, scans, linalg, joins, gathers, shapes):
  // each writes through the same funnel.
  const Tensor a = ones({2, 3});
  CHECK_THROWS_WITH(sum_out(base.select(1, 0), a, {1}), msg);
  CHECK_THROWS_WITH(cumsum_out(base, a, 1), msg);
  CHECK_THROWS_WITH(softmax_out(base, a, 1), msg);
  CHECK_THROWS_WITH(mm_out(base, ones({2, 2}), a), msg);
  CHECK_THROWS_WITH(cat_out(base, {ones({1, 3}), ones({1, 3})}), msg);
  CHECK_THROWS_WITH(index_select_out(base, a, 0, tensor(std::vector<int64_t>{0, 1})), msg);
  CHECK_THROWS_WITH(gather_out(base, a, 1, zeros({2, 3}, TensorOptions().dtype(kLong))), msg);
  CHECK_THROWS_WITH(negative_out(base, a), msg);
  CHECK_THROWS_WITH(where_out(base, a > 0, a, a), msg);
  CHECK_THROWS_WITH(tril_out(base, a), msg);
  // An int64 out= (nonzero_out needs one): the flag on an ordinary storage works the same.
  const Tensor long_out = zeros({6, 2}, TensorOptions().dtype(kLong));
  long_out.storage().set_read_only(true);
  CHECK_THROWS_WITH(nonzero_out(long_out, a), msg);
  CHECK_THROWS_WITH(argmax_out(long_out.select(1, 0).narrow(0, 0, 2), a, 1), msg);
  CHECK(long_out.sum().item<int64_t>() == 0);
  CHECK(f.read() == expected);  // nothing got through

  // In-place view ops change only the geometry of one tensor: allowed, as resize_ within the
  // storage is.
  Tensor alias = base.detach();
  alias.t_();
  alias.unsqueeze_(0);
  alias.squeeze_(0);
  CHECK(alias.sizes() == IntArrayRef({3, 2}));
  CHECK_THROWS_WITH(alias.zero_(), msg);

  // Reading works; clone() and contiguous() give ordinary writable tensors.
  CHECK(base.sum().item<float>() == 21.0f);
  const Tensor c = base.t().contiguous();
  CHECK_FALSE(c.storage().read_only());
  c.add_(1);
  CHECK(c.index({2, 1}).item<float>() == 7.0f);
  const Tensor cl = base.clone();
  cl.zero_();
  CHECK(base.index({1, 2}).item<float>() == 6.0f);
  // Reading into another tensor is fine: the read-only one is only a source.
  const Tensor dst = zeros({2, 3});
  dst.copy_(base);
  add_out(dst, base, base);
  CHECK(dst.index({1, 2}).item<float>() == 12.0f);
}

TEST_CASE("Copy-on-write mappings are writable and leave the file unchanged", "[serialize]") {
  TempFile f("cow");
  f.write(floats_bytes({1, 2, 3, 4}));
  const std::string expected = f.read();
  {
    const Tensor t = mapped_floats(f, MapMode::CopyOnWrite, 4);
    CHECK_FALSE(t.storage().read_only());
    t.add_(10);
    t.index_put_({0}, 100);
    CHECK(t.index({0}).item<float>() == 100.0f);
    CHECK(t.index({3}).item<float>() == 14.0f);
  }
  CHECK(f.read() == expected);
}

TEST_CASE("Shared writable mappings write through to the file", "[serialize]") {
  TempFile f("shared");
  f.write(floats_bytes({1, 2, 3, 4}));
  {
    const Tensor t = mapped_floats(f, MapMode::SharedWritable, 4);
    t.mul_(2);
  }
  CHECK(f.read() == floats_bytes({2, 4, 6, 8}));
}

TEST_CASE("from_file: torch's semantics and messages", "[serialize]") {
  TempFile f("from_file");
  f.write(floats_bytes({1, 2, 3, 4}));
  SECTION("private (the default): writable copy-on-write, the file unchanged") {
    const Tensor t = from_file(f.str(), std::nullopt, 4);
    CHECK(t.dtype() == kFloat);
    CHECK(t.sizes() == IntArrayRef({4}));
    CHECK_FALSE(t.storage().resizable());
    t.add_(1);
    CHECK(t.index({3}).item<float>() == 5.0f);
    CHECK(f.read() == floats_bytes({1, 2, 3, 4}));
    CHECK(from_file(f.str(), false, 2).sum().item<float>() == 3.0f);
  }
  SECTION("shared=true: writes reach the file") {
    {
      const Tensor t = from_file(f.str(), true, 4);
      t.index_put_({1}, 20);
      t.index({3}).fill_(40);
    }
    CHECK(f.read() == floats_bytes({1, 20, 3, 40}));
  }
  SECTION("dtype and size in elements") {
    const Tensor b = from_file(f.str(), false, 16, TensorOptions().dtype(kByte));
    CHECK(b.numel() == 16);
    CHECK(b.index({4}).item<int64_t>() == 0);  // 2.0f = 00 00 00 40
    CHECK(b.index({7}).item<int64_t>() == 0x40);
    const Tensor s = from_file(f.str(), false, 8, TensorOptions().dtype(kShort));
    CHECK(s.numel() == 8);
  }
  SECTION("size 0 is an empty tensor") {
    CHECK(from_file(f.str()).numel() == 0);
    CHECK(from_file(f.str(), false, 0).sizes() == IntArrayRef({0}));
  }
  SECTION("a file too small, a missing file, a negative size, a non-CPU device") {
    CHECK_THROWS_WITH(from_file(f.str(), false, 5),
                      "file <" + f.str() + "> size is smaller than the required mapping size <20>");
    TempFile missing("from_file_missing");
    CHECK_THROWS_WITH(from_file(missing.str(), false, 1),
                      "unable to open file <" + missing.str() +
                          "> in read-only mode: No such file or directory (2)");
    CHECK_THROWS_AS(from_file(f.str(), false, -1), ValueError);
    CHECK_THROWS_WITH(from_file(f.str(), false, int64_t(1) << 62),
                      Contains("Storage size calculation overflowed"));
    CHECK_THROWS_WITH(from_file(f.str(), false, 1, TensorOptions().device(Device("cuda"))),
                      Contains("from_file: a file is mapped into CPU memory"));
  }
  SECTION("shared=true creates a missing file and grows a short one, as torch does") {
    TempFile created("from_file_created");
    const Tensor t = from_file(created.str(), true, 3);
    CHECK(t.sum().item<float>() == 0.0f);
    CHECK(std::filesystem::file_size(created.path) == 12);
    const Tensor g = from_file(f.str(), true, 6);
    CHECK(std::filesystem::file_size(f.path) == 24);
    CHECK(g.index({5}).item<float>() == 0.0f);
  }
  SECTION("requires_grad comes from the options") {
    CHECK(from_file(f.str(), false, 4, TensorOptions().requires_grad(true)).requires_grad());
  }
}

}  // namespace serialize_mapped_file_test
