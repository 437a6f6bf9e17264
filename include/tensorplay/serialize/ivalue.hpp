// IValue: the subset of c10::IValue that torch.save state dicts need, with c10's names: None,
// Bool, Int (int64), Double, String, Tensor, List, Tuple and GenericDict.
//
// Scalars, strings and tensors are held by value (a Tensor is a handle, so copying one aliases
// its TensorImpl, as in c10). The containers are held through a shared_ptr, as c10 holds them
// through an intrusive_ptr: copying an IValue that holds a list aliases the list, so a container
// reached twice in a pickle is one object here too. A GenericDict keeps its entries in insertion
// order (Python's dict and OrderedDict both do) and remembers whether it came from a
// collections.OrderedDict, so that a state dict saves back as one.
// Thread safety: none beyond the underlying types'; do not mutate a container shared across
// threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {

class IValue;

namespace serialize::detail {
struct ListHolder;
struct TupleHolder;
}  // namespace serialize::detail

// Key/value pairs in insertion order; keys are usually strings or ints. Lookup is linear, which
// is what a state dict's few hundred keys need; insert replaces the value of an equal key in
// place, as Python's dict does.
// (Members that touch `entries` are defined below IValue: std::pair<IValue, IValue> needs IValue
// complete, which clang checks where g++ defers.)
struct GenericDict {
  using Entries = std::vector<std::pair<IValue, IValue>>;
  Entries entries;
  bool ordered = false;  // true: a collections.OrderedDict, false: a plain dict

  inline std::size_t size() const noexcept;
  inline bool empty() const noexcept;
  inline const IValue* find(const IValue& key) const;
  inline const IValue& at(const IValue& key) const;
  inline void insert(IValue key, IValue value);
  inline Entries::const_iterator begin() const noexcept;
  inline Entries::const_iterator end() const noexcept;
};

class IValue {
 public:
  enum class Tag { None, Bool, Int, Double, String, Tensor, List, Tuple, GenericDict };

  IValue() noexcept = default;
  IValue(bool v) : v_(v) {}                       // NOLINT: implicit as c10's
  IValue(int v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  IValue(int64_t v) : v_(v) {}                    // NOLINT
  IValue(double v) : v_(v) {}                     // NOLINT
  IValue(std::string v) : v_(std::move(v)) {}     // NOLINT
  IValue(const char* v) : v_(std::string(v)) {}   // NOLINT
  IValue(Tensor v) : v_(std::move(v)) {}          // NOLINT
  IValue(std::vector<IValue> list);               // NOLINT: a List
  static IValue make_tuple(std::vector<IValue> elements);
  static IValue make_dict(bool ordered = false) {
    IValue out;
    out.v_ = std::make_shared<GenericDict>(GenericDict{{}, ordered});
    return out;
  }

  Tag tag() const noexcept { return static_cast<Tag>(v_.index()); }
  // c10's tagKind(): "None", "Bool", "Int", ..., as its messages print them.
  const char* tagKind() const noexcept {
    static constexpr const char* kNames[] = {"None",   "Bool", "Int",   "Double",     "String",
                                             "Tensor", "List", "Tuple", "GenericDict"};
    return kNames[v_.index()];
  }

  bool isNone() const noexcept { return tag() == Tag::None; }
  bool isBool() const noexcept { return tag() == Tag::Bool; }
  bool isInt() const noexcept { return tag() == Tag::Int; }
  bool isDouble() const noexcept { return tag() == Tag::Double; }
  bool isString() const noexcept { return tag() == Tag::String; }
  bool isTensor() const noexcept { return tag() == Tag::Tensor; }
  bool isList() const noexcept { return tag() == Tag::List; }
  bool isTuple() const noexcept { return tag() == Tag::Tuple; }
  bool isGenericDict() const noexcept { return tag() == Tag::GenericDict; }

  bool toBool() const { return std::get<bool>(expect(Tag::Bool, "Bool")); }
  int64_t toInt() const { return std::get<int64_t>(expect(Tag::Int, "Int")); }
  double toDouble() const { return std::get<double>(expect(Tag::Double, "Double")); }
  const std::string& toStringRef() const {
    return std::get<std::string>(expect(Tag::String, "String"));
  }
  const Tensor& toTensor() const { return std::get<Tensor>(expect(Tag::Tensor, "Tensor")); }
  inline std::vector<IValue>& toList() const;
  inline std::vector<IValue>& toTuple() const;
  GenericDict& toGenericDict() const {
    return *std::get<std::shared_ptr<GenericDict>>(expect(Tag::GenericDict, "GenericDict"));
  }

  // Dict shorthand (c10's c10::Dict::insert_or_assign).
  void insert(IValue key, IValue value) const {
    toGenericDict().insert(std::move(key), std::move(value));
  }

  // The shared container behind a List, Tuple or GenericDict (null for the other kinds): two
  // IValues alias one container exactly when these are equal (c10's isAliasOf).
  const void* container_identity() const noexcept;

 private:
  using Variant =
      std::variant<std::monostate, bool, int64_t, double, std::string, Tensor,
                   std::shared_ptr<serialize::detail::ListHolder>,
                   std::shared_ptr<serialize::detail::TupleHolder>, std::shared_ptr<GenericDict>>;

  const Variant& expect(Tag want, const char* name) const {
    TP_CHECK_TYPE(tag() == want, "Expected ", name, " but got ", tagKind());
    return v_;
  }

  Variant v_;
};

namespace serialize::detail {
struct ListHolder {
  std::vector<IValue> elements;
};
struct TupleHolder {
  std::vector<IValue> elements;
};
}  // namespace serialize::detail

inline IValue::IValue(std::vector<IValue> list)
    : v_(std::make_shared<serialize::detail::ListHolder>(
          serialize::detail::ListHolder{std::move(list)})) {}

inline IValue IValue::make_tuple(std::vector<IValue> elements) {
  IValue out;
  out.v_ = std::make_shared<serialize::detail::TupleHolder>(
      serialize::detail::TupleHolder{std::move(elements)});
  return out;
}

inline std::vector<IValue>& IValue::toList() const {
  return std::get<std::shared_ptr<serialize::detail::ListHolder>>(expect(Tag::List, "List"))
      ->elements;
}
inline std::vector<IValue>& IValue::toTuple() const {
  return std::get<std::shared_ptr<serialize::detail::TupleHolder>>(expect(Tag::Tuple, "Tuple"))
      ->elements;
}

inline const void* IValue::container_identity() const noexcept {
  switch (tag()) {
    case Tag::List: return std::get<6>(v_).get();
    case Tag::Tuple: return std::get<7>(v_).get();
    case Tag::GenericDict: return std::get<8>(v_).get();
    default: return nullptr;
  }
}

namespace serialize::detail {
// Dict key equality, as Python hashes keys: None, bools, ints, doubles and strings compare by
// value (True == 1 and 1 == 1.0, as in Python); tensors and containers by identity.
inline bool key_equal(const IValue& a, const IValue& b) {
  auto number = [](const IValue& v, double& out) {
    if (v.isBool())
      out = v.toBool() ? 1.0 : 0.0;
    else if (v.isInt())
      out = static_cast<double>(v.toInt());
    else if (v.isDouble())
      out = v.toDouble();
    else
      return false;
    return true;
  };
  double x = 0, y = 0;
  if (number(a, x) && number(b, y)) {
    if (a.isInt() && b.isInt()) return a.toInt() == b.toInt();
    return x == y;
  }
  if (a.tag() != b.tag()) return false;
  switch (a.tag()) {
    case IValue::Tag::None: return true;
    case IValue::Tag::String: return a.toStringRef() == b.toStringRef();
    case IValue::Tag::Tensor:
      return a.toTensor().unsafeGetTensorImpl() == b.toTensor().unsafeGetTensorImpl();
    default: return a.container_identity() == b.container_identity();
  }
}
}  // namespace serialize::detail

inline std::size_t GenericDict::size() const noexcept { return entries.size(); }
inline bool GenericDict::empty() const noexcept { return entries.empty(); }
inline GenericDict::Entries::const_iterator GenericDict::begin() const noexcept {
  return entries.begin();
}
inline GenericDict::Entries::const_iterator GenericDict::end() const noexcept {
  return entries.end();
}
inline const IValue* GenericDict::find(const IValue& key) const {
  for (const auto& kv : entries) {
    if (serialize::detail::key_equal(kv.first, key)) return &kv.second;
  }
  return nullptr;
}

inline const IValue& GenericDict::at(const IValue& key) const {
  const IValue* v = find(key);
  if (v) return *v;
  if (key.isString()) throw IndexError("KeyError: '" + key.toStringRef() + "'");
  throw IndexError(std::string("KeyError: key of kind ") + key.tagKind() + " not found");
}

inline void GenericDict::insert(IValue key, IValue value) {
  for (auto& kv : entries) {
    if (serialize::detail::key_equal(kv.first, key)) {
      kv.second = std::move(value);
      return;
    }
  }
  entries.emplace_back(std::move(key), std::move(value));
}

}  // namespace tensorplay
