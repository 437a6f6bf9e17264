// IValue and the restricted pickle machine (serialize/ivalue.hpp, serialize/pickle.hpp): pickles
// Python wrote in protocols 2, 4 and 5 load with every leaf and container kind; the pickler's
// protocol-2 output is byte-identical to Python's for the same object and loads back; and every
// check on hostile input: disallowed globals (GLOBAL and STACK_GLOBAL), unknown opcodes,
// truncation at every length, stack underflow, MARK misuse, bad memo indices, cycles, nesting
// depth, oversized LONG1, string amplification through the memo, and tensor geometry that runs
// past its storage.
#include <tensorplay/serialize/pickle.hpp>

#include <tensorplay/core/empty.hpp>

#include <catch2/catch.hpp>

#include "serialize_test_util.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace serialize_pickle_test {

using namespace tensorplay;
using tensorplay::serialize::pickle;
using tensorplay::serialize::unpickle;
using namespace std::string_literals;

namespace {

std::string slurp(const std::string& name) {
  return serialize_test::slurp(serialize_test::data_dir("torchzip") / name);
}

std::string bin(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

// The object make_torchzip.py pickles as plain_p*.pkl.
void check_plain(const IValue& v) {
  REQUIRE(v.isGenericDict());
  const GenericDict& d = v.toGenericDict();
  CHECK_FALSE(d.ordered);
  REQUIRE(d.size() == 6);
  CHECK(d.entries[0].first.toStringRef() == "list");
  const auto& list = d.at("list").toList();
  REQUIRE(list.size() == 6);
  CHECK(list[0].toInt() == 1);
  CHECK(list[1].toDouble() == 2.5);
  CHECK(list[2].toStringRef() == "str");
  CHECK(list[3].toBool());
  CHECK(list[4].isNone());
  const auto& tup = list[5].toTuple();
  REQUIRE(tup.size() == 3);
  CHECK(tup[0].toInt() == 1);
  CHECK(tup[1].toStringRef() == "x");
  CHECK(tup[2].toList().size() == 1);
  CHECK(tup[2].toList()[0].toInt() == 3);
  const GenericDict& inner = d.at("dict").toGenericDict();
  CHECK(inner.at("k").toInt() == -5);
  CHECK(inner.at(1).toStringRef() == "int key");
  CHECK(d.at("big").toInt() == (int64_t{1} << 40));
  CHECK(d.at("neg").toInt() == -(int64_t{1} << 40));
  CHECK(d.at("min").toInt() == INT64_MIN);
  const GenericDict& ord = d.at("ord").toGenericDict();
  CHECK(ord.ordered);
  REQUIRE(ord.size() == 2);
  CHECK(ord.entries[0].first.toStringRef() == "b");
  CHECK(ord.entries[1].second.toInt() == 2);
}

IValue load(const std::string& s) { return unpickle(std::string_view(s)); }

}  // namespace

TEST_CASE("IValue: kinds, accessors and c10's wrong-kind message", "[serialize]") {
  CHECK(IValue().isNone());
  CHECK(IValue(true).toBool());
  CHECK(IValue(3).toInt() == 3);
  CHECK(IValue(int64_t{1} << 40).toInt() == int64_t{1} << 40);
  CHECK(IValue(0.5).toDouble() == 0.5);
  CHECK(IValue("s").toStringRef() == "s");
  CHECK(IValue(std::string("t")).isString());
  Tensor t = tensorplay::empty({2});
  CHECK(IValue(t).toTensor().is_alias_of(t));
  CHECK(IValue(std::vector<IValue>{1, "a"}).toList().size() == 2);
  CHECK(IValue::make_tuple({1, 2, 3}).toTuple().size() == 3);
  IValue d = IValue::make_dict(/*ordered=*/true);
  d.insert("a", 1);
  d.insert("b", 2);
  d.insert("a", 3);  // replaces in place, as Python's dict
  CHECK(d.toGenericDict().ordered);
  REQUIRE(d.toGenericDict().size() == 2);
  CHECK(d.toGenericDict().entries[0].second.toInt() == 3);
  CHECK(d.toGenericDict().find("zz") == nullptr);
  CHECK_THROWS_AS(d.toGenericDict().at("zz"), IndexError);
  CHECK_THROWS_WITH(IValue(1).toTensor(), "Expected Tensor but got Int");
  CHECK_THROWS_AS(IValue(1).toTensor(), TypeError);
  CHECK_THROWS_WITH(IValue("x").toList(), "Expected List but got String");
  CHECK_THROWS_WITH(IValue().toGenericDict(), "Expected GenericDict but got None");
  CHECK_THROWS_WITH(IValue(1.0).toInt(), "Expected Int but got Double");
  // Containers alias on copy, as c10's do.
  IValue l(std::vector<IValue>{});
  IValue l2 = l;
  l2.toList().push_back(1);
  CHECK(l.toList().size() == 1);
  CHECK(l.container_identity() == l2.container_identity());
}

TEST_CASE("unpickle: Python's pickles in protocols 2, 4 and 5", "[serialize]") {
  for (const char* name : {"plain_p2.pkl", "plain_p4.pkl", "plain_p5.pkl"}) {
    INFO(name);
    check_plain(load(slurp(name)));
  }
}

TEST_CASE("pickle: protocol 2 output is Python's, and round trips", "[serialize]") {
  const std::string python = slurp("plain_p2.pkl");
  const IValue v = load(python);
  const std::string ours = pickle(v);
  CHECK(ours == python);
  check_plain(load(ours));
  // Leaves Python's file does not have.
  IValue d = IValue::make_dict();
  d.insert("floats", std::vector<IValue>{-0.0, 1e300, -2.5e-300});
  d.insert("ints", std::vector<IValue>{0, 255, 256, 65535, 65536, -1, INT32_MIN, INT32_MAX,
                                       int64_t{INT32_MAX} + 1, int64_t{INT32_MIN} - 1, INT64_MAX,
                                       INT64_MIN, int64_t{-129}, int64_t{1} << 31});
  d.insert(IValue(), "none key");
  d.insert(true, IValue::make_tuple({}));
  std::vector<IValue> many;
  for (int i = 0; i < 2500; ++i)
    many.push_back(i % 7 == 0 ? IValue("s" + std::to_string(i)) : IValue(i));
  d.insert("many", many);
  IValue shared(std::vector<IValue>{1});
  d.insert("shared", IValue::make_tuple({shared, shared, 1, 2}));
  const IValue back = load(pickle(d));
  const GenericDict& b = back.toGenericDict();
  CHECK(std::signbit(b.at("floats").toList()[0].toDouble()));
  CHECK(b.at("floats").toList()[1].toDouble() == 1e300);
  const auto& ints = b.at("ints").toList();
  const auto& want = d.toGenericDict().at("ints").toList();
  REQUIRE(ints.size() == want.size());
  for (std::size_t i = 0; i < ints.size(); ++i) CHECK(ints[i].toInt() == want[i].toInt());
  CHECK(b.at(IValue()).toStringRef() == "none key");
  CHECK(b.at(true).toTuple().empty());
  REQUIRE(b.at("many").toList().size() == 2500);
  CHECK(b.at("many").toList()[2498].toInt() == 2498);
  CHECK(b.at("many").toList()[7].toStringRef() == "s7");
  const auto& sh = b.at("shared").toTuple();
  CHECK(sh[0].container_identity() == sh[1].container_identity());  // memo kept the aliasing
  // A tensor needs a storage id; nesting is bounded.
  CHECK_THROWS_WITH(pickle(IValue(tensorplay::empty({1}))),
                    Catch::Contains("needs a persistent storage id"));
  IValue deep(std::vector<IValue>{});
  for (int i = 0; i < 1100; ++i) deep = IValue(std::vector<IValue>{deep});
  CHECK_THROWS_WITH(pickle(deep), Catch::Contains("nesting deeper than 1000"));
}

TEST_CASE("unpickle: disallowed globals and opcodes", "[serialize]") {
  // pickle.dumps(os.system) with an argument: c os\nsystem\n, ('ls',), REDUCE.
  const std::string os_system =
      "\x80\x02"
      "cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02R."s;
  CHECK_THROWS_WITH(load(os_system),
                    "Weights only load failed. WeightsUnpickler error: Unsupported global: GLOBAL "
                    "os.system");
  CHECK_THROWS_WITH(load("\x80\x02"
                         "cposix\nsystem\n."),
                    Catch::Contains("Unsupported global: GLOBAL posix.system"));
  // STACK_GLOBAL (protocol 4) builtins.eval.
  const std::string eval =
      "\x80\x04\x8c\x08"
      "builtins\x8c\x04"
      "eval\x93.";
  CHECK_THROWS_WITH(load(eval), Catch::Contains("Unsupported global: GLOBAL builtins.eval"));
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ctorch\nload\n."),
                    Catch::Contains("Unsupported global: GLOBAL torch.load"));
  // INST (an opcode torch.save never emits) and a byte that is no opcode at all.
  CHECK_THROWS_WITH(load("\x80\x02i"), Catch::Contains("Unsupported operand 105 (opcode 0x69)"));
  CHECK_THROWS_WITH(load(bin({0x80, 2, 0xFF})), Catch::Contains("Unsupported operand 255"));
  CHECK_THROWS_WITH(load(bin({0x80, 6, 'N', '.'})),
                    Catch::Contains("unsupported pickle protocol: 6"));
  // Allowed globals used the wrong way.
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ctorch\nFloatStorage\n)R."),
                    Catch::Contains("REDUCE on torch.FloatStorage is not supported"));
  CHECK_THROWS_WITH(load("\x80\x02K\x01)R."), Catch::Contains("REDUCE on a Int is not supported"));
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ccollections\nOrderedDict\nK\x01R."),
                    Catch::Contains("REDUCE arguments must be a tuple"));
  CHECK_THROWS_WITH(load("\x80\x02]N"
                         "b."),
                    Catch::Contains("BUILD on a List is not supported"));
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ctorch._utils\n_rebuild_tensor_v2\nK\x01\x85R."),
                    Catch::Contains("expects 6 or 7 arguments"));
  CHECK_THROWS_WITH(load("\x80\x02K\x01Q."), Catch::Contains("no persistent_load function"));
  // torch.device is allowed and loads as its string.
  CHECK(load("\x80\x02"
             "ctorch\ndevice\nX\x03\x00\x00\x00"
             "cpu\x85R."s)
            .toStringRef() == "cpu");
  // BUILD on an OrderedDict (a state dict's _metadata) is accepted and the state dropped.
  const IValue od = load(
      "\x80\x02"
      "ccollections\nOrderedDict\n)R}b.");
  CHECK(od.toGenericDict().ordered);
}

TEST_CASE("unpickle: malformed streams are typed errors", "[serialize]") {
  const std::string good = slurp("plain_p4.pkl");
  SECTION("truncated at every length") {
    for (std::size_t n = 0; n < good.size(); ++n) {
      CHECK_THROWS_AS(load(good.substr(0, n)), Error);
    }
    CHECK_THROWS_WITH(load("\x80\x02X\xFF\xFF\xFF\x7F"
                           "abc"),
                      Catch::Contains("pickle data was truncated"));
    CHECK_THROWS_WITH(load(bin({0x80, 4, 0x95, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 'N', '.'})),
                      Catch::Contains("truncated"));
  }
  SECTION("a byte flipped anywhere loads or throws, never crashes") {
    for (const char* name : {"plain_p2.pkl", "plain_p4.pkl"}) {
      const std::string base = slurp(name);
      for (std::size_t i = 0; i < base.size(); ++i) {
        for (int x : {1, 0x80, 0xFF}) {
          std::string s = base;
          s[i] = static_cast<char>(s[i] ^ x);
          try {
            load(s);
          } catch (const Error&) {
          }
        }
      }
    }
  }
  SECTION("stack, MARK and memo misuse") {
    CHECK_THROWS_WITH(load("\x80\x02]a."), Catch::Contains("unpickling stack underflow"));
    CHECK_THROWS_WITH(load("\x80\x02N(0."), Catch::Contains("unpickling stack underflow"));
    CHECK_THROWS_WITH(load("\x80\x02N(\x86."), Catch::Contains("unpickling stack underflow"));
    CHECK_THROWS_WITH(load("\x80\x02]e."), Catch::Contains("could not find MARK"));
    CHECK_THROWS_WITH(load("\x80\x02"
                           "1."),
                      Catch::Contains("could not find MARK"));
    CHECK_THROWS_WITH(load("\x80\x02NN."), Catch::Contains("STOP with 2 values"));
    CHECK_THROWS_WITH(load("\x80\x02N(."), Catch::Contains("STOP with"));
    CHECK_THROWS_WITH(load("\x80\x02."), Catch::Contains("STOP with 0 values"));
    CHECK_THROWS_WITH(load("\x80\x02h\x05."), Catch::Contains("Memo value not found at index 5"));
    CHECK_THROWS_WITH(load("\x80\x02j\xFF\xFF\xFF\xFF."), Catch::Contains("Memo value not found"));
    CHECK_THROWS_WITH(load("\x80\x02q\x00."s), Catch::Contains("unpickling stack underflow"));
    CHECK_THROWS_WITH(load("\x80\x02N(K\x01u."), Catch::Contains("SETITEM(S) on a None"));
    CHECK_THROWS_WITH(load("\x80\x02}(K\x01u."), Catch::Contains("odd number"));
    CHECK_THROWS_WITH(load("\x80\x02NK\x01"
                           "a."),
                      Catch::Contains("APPEND(S) to a None"));
  }
  SECTION("cycles and nesting depth") {
    CHECK_THROWS_WITH(load("\x80\x02]q\x00h\x00"
                           "a."s),
                      Catch::Contains("cannot contain itself"));
    // L0 = [], L1 = [], L0.append(L1), then L1.append(L0): refused, L1 is sealed.
    CHECK_THROWS_WITH(load("\x80\x02]q\x00]q\x01"
                           "ah\x01h\x00"
                           "a0."s),
                      Catch::Contains("after it was nested"));
    std::string deep = "\x80\x02";
    for (int i = 0; i < 1100; ++i) deep += ']';
    for (int i = 0; i < 1099; ++i) deep += 'a';
    deep += '.';
    CHECK_THROWS_WITH(load(deep), Catch::Contains("nesting deeper than 1000"));
    std::string tuples = "\x80\x02N";
    for (int i = 0; i < 1100; ++i) tuples += '\x85';
    CHECK_THROWS_WITH(load(tuples + "."), Catch::Contains("nesting deeper than 1000"));
    std::string ok = "\x80\x02N";
    for (int i = 0; i < 999; ++i) ok += '\x85';
    CHECK(load(ok + ".").isTuple());
  }
  SECTION("LONG1 beyond int64") {
    CHECK_THROWS_WITH(load(bin({0x80, 2, 0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, '.'})),
                      Catch::Contains("does not fit in a 64-bit Int"));
    CHECK_THROWS_WITH(load(bin({0x80, 2, 0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, '.'})),
                      Catch::Contains("does not fit"));  // 2^63
    // Redundant sign bytes are still values that fit; LONG1 of 0 bytes is 0.
    CHECK(load(bin({0x80, 2, 0x8a, 9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, '.'}))
              .toInt() == -1);
    CHECK(load(bin({0x80, 2, 0x8a, 0, '.'})).toInt() == 0);
    CHECK(load(bin({0x80, 2, 0x8a, 1, 0x80, '.'})).toInt() == -128);
  }
  SECTION("memo references cannot amplify a string without bound") {
    std::string s = "\x80\x02X";
    const uint32_t n = 100000;
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
    s += std::string(n, 'a') +
         "q\x00"
         "0"s;
    for (int i = 0; i < 2000; ++i)
      s += "h\x00"
           "0"s;
    CHECK_THROWS_WITH(load(s + "N."), Catch::Contains("referenced too many times"));
    std::string puts = s.substr(0, 7 + n);
    for (int i = 0; i < 2000; ++i) puts += "q\x00"s;
    CHECK_THROWS_WITH(load(puts + "."), Catch::Contains("referenced too many times"));
  }
}

TEST_CASE("unpickle: allowed globals with bad arguments", "[serialize]") {
  const std::string od =
      "\x80\x02"
      "ccollections\nOrderedDict\n";
  CHECK_THROWS_WITH(load(od + "K\x01\x85R."), Catch::Contains("OrderedDict(...) with arguments"));
  CHECK_THROWS_WITH(load(od + od.substr(2) + "R."),
                    Catch::Contains("REDUCE arguments must be a tuple"));
  CHECK(load(od + ")\x81.").toGenericDict().ordered);  // NEWOBJ
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ctorch\ndevice\n)\x81."),
                    Catch::Contains("NEWOBJ on torch.device is not supported"));
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ctorch\ndevice\nK\x01\x85R."),
                    Catch::Contains("torch.device expects a string"));
  CHECK(load("\x80\x02"
             "ctorch\ndevice\nX\x04\x00\x00\x00"
             "cudaK\x01\x86R."s)
            .toStringRef() == "cuda:1");
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ctorch._utils\n_rebuild_parameter\nK\x01\x85R."),
                    Catch::Contains("_rebuild_parameter expects (tensor, bool, OrderedDict)"));
  CHECK_THROWS_WITH(load("\x80\x04K\x01K\x02\x93."),
                    Catch::Contains("STACK_GLOBAL requires two strings"));
  CHECK_THROWS_WITH(load("\x80\x02"
                         "ccollections\nOrd"),
                    Catch::Contains("truncated"));

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) with the
  // storage a persistent id the loader turns into a 4-element float storage.
  serialize::PersistentLoad loader = [](const IValue&) -> IValue {
    return IValue(tensorplay::empty({4}));
  };
  auto rebuild = [&](const std::string& args) {
    const std::string pkl =
        "\x80\x02"
        "ctorch._utils\n_rebuild_tensor_v2\n(K\x00Q"s +
        args + "tR.";
    return unpickle(std::string_view(pkl), loader);
  };
  const std::string ok_size = "K\x02\x85K\x01\x85";
  CHECK(rebuild("K\x01" + ok_size + "\x89}").toTensor().storage_offset() == 1);
  CHECK(rebuild("K\x00"s + ok_size + "\x88N}").toTensor().requires_grad());  // 7 args, hooks None
  CHECK_THROWS_WITH(rebuild("N" + ok_size + "\x89}"),
                    Catch::Contains("storage_offset must be an int, got None"));
  CHECK_THROWS_WITH(rebuild("K\x00K\x02K\x01\x85\x89}"s),
                    Catch::Contains("size must be a tuple of ints, got Int"));
  CHECK_THROWS_WITH(rebuild("K\x00N\x85K\x01\x85\x89}"s),
                    Catch::Contains("size must be an int, got None"));
  CHECK_THROWS_WITH(rebuild("K\x00"s + ok_size + "K\x01}"),
                    Catch::Contains("requires_grad must be a bool"));
  CHECK_THROWS_WITH(rebuild("K\x00"s + ok_size + "\x89K\x01"),
                    Catch::Contains("backward_hooks must be an OrderedDict"));
  CHECK_THROWS_AS(rebuild("K\x00"s + ok_size + "\x89}K\x01K\x02s"), NotImplementedError);
  CHECK_THROWS_AS(rebuild("J\xff\xff\xff\xff" + ok_size + "\x89}"), ValueError);
  CHECK_THROWS_WITH(rebuild("K\x00K\x02\x85K\x01K\x01\x86\x89}"s),
                    Catch::Contains("mismatch in length of strides and shape"));
  CHECK_THROWS_WITH(rebuild("K\x00J\xff\xff\xff\xff\x85K\x01\x85\x89}"s),
                    Catch::Contains("negative dimension"));
}

TEST_CASE("unpickle: tensors through a persistent loader", "[serialize]") {
  // A 3x4 float tensor pickled as torch.save pickles it; the loader decides the storage size.
  Tensor t = tensorplay::empty({3, 4});
  for (int i = 0; i < 12; ++i) static_cast<float*>(t.data_ptr())[i] = static_cast<float>(i);
  int64_t claimed = 12;
  const std::string pkl = pickle(IValue(t), [&](const Tensor&) {
    return serialize::StorageRef{"0", "cpu", claimed};
  });
  serialize::PersistentLoad loader = [&](const IValue& pid) -> IValue {
    const auto& p = pid.toTuple();
    CHECK(p[0].toStringRef() == "storage");
    CHECK(p[1].toStringRef() == "torch.FloatStorage");
    CHECK(p[2].toStringRef() == "0");
    CHECK(p[3].toStringRef() == "cpu");
    return IValue(tensorplay::empty({p[4].toInt()}));
  };
  const IValue back = unpickle(std::string_view(pkl), loader);
  CHECK(back.toTensor().sizes() == IntArrayRef({3, 4}));
  CHECK(back.toTensor().strides() == IntArrayRef({4, 1}));
  // The storage is one element short: a typed error, not an out-of-bounds view.
  claimed = 11;
  const std::string short_pkl = pickle(IValue(t), [&](const Tensor&) {
    return serialize::StorageRef{"0", "cpu", claimed};
  });
  CHECK_THROWS_AS(unpickle(std::string_view(short_pkl), loader), ValueError);
  CHECK_THROWS_WITH(unpickle(std::string_view(short_pkl), loader),
                    "setStorage: sizes [3, 4], strides [4, 1], storage offset 0, and itemsize 4 "
                    "requiring a storage size of 48 are out of bounds for storage of size 44");
  // A loader that returns something else than a storage.
  CHECK_THROWS_WITH(unpickle(std::string_view(pkl), [](const IValue&) { return IValue(1); }),
                    Catch::Contains("the storage must come from a persistent id"));
}

}  // namespace serialize_pickle_test
