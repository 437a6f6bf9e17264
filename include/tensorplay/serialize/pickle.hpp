// A restricted unpickler and a pickler for the objects torch.save writes: None, bool, int,
// float, str, list, tuple, dict, collections.OrderedDict and tensors (torch._utils
// _rebuild_tensor_v2 / _rebuild_parameter over storages named by persistent ids).
//
// Loading never runs code. The unpickler is a stack machine over protocols 2-5 that knows only
// the opcodes Python emits for those objects, and only an allow-list of globals: collections
// OrderedDict, torch._utils _rebuild_tensor_v2 and _rebuild_parameter, the torch.XStorage
// classes of our ten dtypes, and torch device. Anything else is refused with the wording of
// torch's weights_only unpickler ("Weights only load failed ... Unsupported global: GLOBAL
// os.system"), as is an unknown opcode. Every read is bounds-checked; stack underflow, a missing
// MARK, an unknown memo index, LONG1 values past int64 and nesting deeper than 1000 are typed
// errors (tensorplay::Error; a tensor geometry that runs past its storage is a ValueError, backward
// hooks a NotImplementedError). Containers are sealed once they are put inside another container,
// so a hostile pickle cannot build a cycle (Python never appends to a container after nesting
// it); string copies made through the memo are budgeted against the input size.
//
// Decisions:
//  - BUILD on an OrderedDict (a state dict's `_metadata` attribute, per-module versions) is
//    accepted and the state is dropped: an IValue dict has no attributes, and loading needs none.
//  - BINBYTES / SHORT_BINBYTES load as a String holding the raw bytes.
//  - A global inside a container (the storage class in a persistent id) becomes the String
//    "module.name"; the persistent loader receives the persistent id in that form.
//  - The persistent loader returns the typed storage as a flat Tensor over the whole storage
//    (dtype from the storage class, numel elements); _rebuild_tensor_v2 views its Storage.
//  - torch.device("cpu") loads as the String "cpu".
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/serialize/ivalue.hpp>

namespace tensorplay::serialize {

// Given the persistent id (a Tuple such as ("storage", "torch.FloatStorage", "0", "cpu", 6)),
// returns the object it names: for a storage, a flat Tensor over the storage's bytes.
using PersistentLoad = std::function<IValue(const IValue& pid)>;

// What the pickler writes as a tensor's storage persistent id: ('storage', torch.XStorage, key,
// location, numel), numel counted in elements of the tensor's dtype.
struct StorageRef {
  std::string key;
  std::string location = "cpu";
  int64_t numel = 0;
};
using PersistentStorageId = std::function<StorageRef(const Tensor&)>;

namespace detail {

using ::tensorplay::detail::str_cat;

inline constexpr int kMaxNestingDepth = 1000;

// torch's legacy storage class for each of our dtypes, in DType order.
inline constexpr std::string_view kStorageClassNames[kNumDTypes] = {
    "BoolStorage", "ByteStorage", "CharStorage",     "ShortStorage", "IntStorage",
    "LongStorage", "HalfStorage", "BFloat16Storage", "FloatStorage", "DoubleStorage"};

inline std::string_view storage_class_name(DType dtype) {
  // torch saves quantized tensors through _rebuild_qtensor, which this writer does not produce.
  TP_CHECK_NOT_IMPLEMENTED(!is_quantized(dtype), "saving a quantized tensor (dtype ", dtype,
                           ") in torch's format is not supported; save its int_repr() and "
                           "quantization parameters");
  return kStorageClassNames[static_cast<std::size_t>(dtype)];
}
inline std::optional<DType> dtype_from_storage_class(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kStorageClassNames[i] == name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

[[noreturn]] inline void unpickle_fail(const std::string& what) {
  throw Error("Weights only load failed. WeightsUnpickler error: " + what);
}

// The allow-listed callables.
enum class Global : int8_t {
  NotGlobal,
  OrderedDict,
  RebuildTensorV2,
  RebuildParameter,
  StorageClass,
  Device,
};

class Unpickler {
 public:
  Unpickler(std::span<const std::byte> data, const PersistentLoad& persistent_load)
      : begin_(reinterpret_cast<const uint8_t*>(data.data())),
        p_(begin_),
        end_(p_ + data.size()),
        persistent_load_(persistent_load) {}

  IValue run() {
    for (;;) {
      const uint8_t op = u8();
      if (dispatch(op)) break;
    }
    if (stack_.size() != 1 || !marks_.empty()) {
      unpickle_fail(str_cat("STOP with ", static_cast<long long>(stack_.size()),
                            " values on the stack (expected 1)"));
    }
    return std::move(stack_.back().v);
  }

 private:
  struct Item {
    IValue v;
    Global global = Global::NotGlobal;
  };

  // ---- reading -----------------------------------------------------------------------------
  const uint8_t* take(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) unpickle_fail("pickle data was truncated");
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }
  uint8_t u8() { return *take(1); }
  uint64_t le(int n) {
    const uint8_t* b = take(static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[i];
    return v;
  }
  std::string bytes(uint64_t n) {
    const uint8_t* b = take(n);
    return std::string(reinterpret_cast<const char*>(b), static_cast<std::size_t>(n));
  }
  std::string line() {
    const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(p_, '\n', end_ - p_));
    if (!nl) unpickle_fail("pickle data was truncated");
    std::string s(reinterpret_cast<const char*>(p_), nl - p_);
    p_ = nl + 1;
    return s;
  }

  // ---- stack -------------------------------------------------------------------------------
  Item pop() {
    if (stack_.size() <= floor()) unpickle_fail("unpickling stack underflow");
    Item it = std::move(stack_.back());
    stack_.pop_back();
    return it;
  }
  Item& top() {
    if (stack_.size() <= floor()) unpickle_fail("unpickling stack underflow");
    return stack_.back();
  }
  // Objects under the innermost MARK belong to it; a plain pop may not reach below it.
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<Item> pop_mark() {
    if (marks_.empty()) unpickle_fail("could not find MARK");
    const std::size_t k = marks_.back();
    marks_.pop_back();
    std::vector<Item> out(std::make_move_iterator(stack_.begin() + static_cast<long>(k)),
                          std::make_move_iterator(stack_.end()));
    stack_.resize(k);
    return out;
  }

  // ---- containers: depth and sealing -------------------------------------------------------
  int depth_of(const IValue& v) const {
    const void* id = v.container_identity();
    if (!id) return 0;
    auto it = depth_.find(id);
    return it == depth_.end() ? 1 : it->second;
  }
  void adopt(const IValue& parent, const IValue& child) {
    const void* pid = parent.container_identity();
    const void* cid = child.container_identity();
    if (sealed_.count(pid)) {
      unpickle_fail(std::string("modifying a ") + parent.tagKind() +
                    " after it was nested in another container is not supported");
    }
    if (cid) {
      if (cid == pid) unpickle_fail("a container cannot contain itself");
      if (sealed_.insert(cid).second) keepalive_.push_back(child);
    }
    auto [slot, fresh] = depth_.try_emplace(pid, 1);
    if (fresh) keepalive_.push_back(parent);
    int& d = slot->second;
    d = std::max({d, 1, depth_of(child) + 1});
    if (d > kMaxNestingDepth) {
      unpickle_fail(str_cat("nesting deeper than ", kMaxNestingDepth, " levels"));
    }
  }
  IValue make_tuple(std::vector<Item> items) {
    std::vector<IValue> elems;
    elems.reserve(items.size());
    for (auto& it : items) elems.push_back(std::move(it.v));
    IValue t = IValue::make_tuple({});
    for (const auto& e : elems) adopt(t, e);
    t.toTuple() = std::move(elems);
    if (sealed_.insert(t.container_identity()).second) keepalive_.push_back(t);  // immutable
    return t;
  }
  void append(Item& target, std::vector<Item> items) {
    if (!target.v.isList()) {
      unpickle_fail(std::string("APPEND(S) to a ") + target.v.tagKind() + ", expected a List");
    }
    for (auto& it : items) {
      adopt(target.v, it.v);
      target.v.toList().push_back(std::move(it.v));
    }
  }
  void setitems(Item& target, std::vector<Item> items) {
    if (!target.v.isGenericDict()) {
      unpickle_fail(std::string("SETITEM(S) on a ") + target.v.tagKind() + ", expected a dict");
    }
    if (items.size() % 2 != 0) unpickle_fail("SETITEMS with an odd number of items");
    for (std::size_t i = 0; i < items.size(); i += 2) {
      adopt(target.v, items[i].v);
      adopt(target.v, items[i + 1].v);
      target.v.insert(std::move(items[i].v), std::move(items[i + 1].v));
    }
  }

  void push(IValue v, Global g = Global::NotGlobal) { stack_.push_back(Item{std::move(v), g}); }

  // Python shares one string object between references; we copy it, so a hostile pickle could
  // turn a few bytes of BINPUT/BINGET into gigabytes. Copies are budgeted against the input size.
  void charge_copy(const Item& it) {
    if (!it.v.isString()) return;
    copied_ += it.v.toStringRef().size();
    if (copied_ > 64 * static_cast<uint64_t>(end_ - begin_) + (uint64_t{1} << 20)) {
      unpickle_fail("memoized strings referenced too many times");
    }
  }
  void memo_put(uint64_t index) {
    charge_copy(top());
    memo_[index] = top();
  }
  void memo_get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) {
      unpickle_fail(str_cat("Memo value not found at index ", static_cast<long long>(index)));
    }
    charge_copy(it->second);
    stack_.push_back(it->second);
  }

  void push_global(const std::string& module, const std::string& name) {
    Global g = Global::NotGlobal;
    if (module == "collections" && name == "OrderedDict")
      g = Global::OrderedDict;
    else if (module == "torch._utils" && name == "_rebuild_tensor_v2")
      g = Global::RebuildTensorV2;
    else if (module == "torch._utils" && name == "_rebuild_parameter")
      g = Global::RebuildParameter;
    else if (module == "torch" && name == "device")
      g = Global::Device;
    else if (module == "torch" && dtype_from_storage_class(name))
      g = Global::StorageClass;
    if (g == Global::NotGlobal) unpickle_fail("Unsupported global: GLOBAL " + module + "." + name);
    push(IValue(module + "." + name), g);
  }

  // ---- the allow-listed calls ----------------------------------------------------------------
  static int64_t int_arg(const IValue& v, const char* what) {
    if (!v.isInt()) unpickle_fail(std::string(what) + " must be an int, got " + v.tagKind());
    return v.toInt();
  }
  static std::vector<int64_t> ints_arg(const IValue& v, const char* what) {
    if (!v.isTuple() && !v.isList()) {
      unpickle_fail(std::string(what) + " must be a tuple of ints, got " + v.tagKind());
    }
    std::vector<int64_t> out;
    for (const IValue& e : v.isTuple() ? v.toTuple() : v.toList()) out.push_back(int_arg(e, what));
    return out;
  }
  static void check_hooks(const IValue& hooks) {
    if (hooks.isNone()) return;
    if (!hooks.isGenericDict()) unpickle_fail("backward_hooks must be an OrderedDict");
    TP_CHECK_NOT_IMPLEMENTED(hooks.toGenericDict().empty(),
                             "loading tensors with backward hooks is not supported");
  }

  static Tensor rebuild_tensor(const std::vector<IValue>& a) {
    if (a.size() != 6 && a.size() != 7) {
      unpickle_fail(str_cat("_rebuild_tensor_v2 expects 6 or 7 arguments, got ",
                            static_cast<long long>(a.size())));
    }
    if (!a[0].isTensor()) {
      unpickle_fail(std::string("_rebuild_tensor_v2: the storage must come from a persistent id, "
                                "got ") +
                    a[0].tagKind());
    }
    const Tensor& flat = a[0].toTensor();
    const int64_t offset = int_arg(a[1], "storage_offset");
    const auto sizes = ints_arg(a[2], "size");
    const auto strides = ints_arg(a[3], "stride");
    if (!a[4].isBool()) unpickle_fail("requires_grad must be a bool");
    check_hooks(a[5]);
    TP_CHECK_VALUE(offset >= 0, "Tensor: invalid storage offset ", offset);
    const DType dtype = flat.dtype();
    const Storage& storage = flat.storage();
    const std::size_t need =
        tensorplay::detail::storage_nbytes(sizes, strides, itemsize(dtype), offset);
    TP_CHECK_VALUE(need <= storage.nbytes(), "setStorage: sizes ", IntArrayRef(sizes), ", strides ",
                   IntArrayRef(strides), ", storage offset ", offset, ", and itemsize ",
                   static_cast<long long>(itemsize(dtype)), " requiring a storage size of ",
                   static_cast<long long>(need), " are out of bounds for storage of size ",
                   static_cast<long long>(storage.nbytes()));
    Tensor t = tensorplay::detail::make_tensor(storage, dtype, sizes, strides, offset);
    if (a[4].toBool()) t.requires_grad_(true);
    return t;
  }

  Item call(const Item& callable, const IValue& args, bool newobj) {
    if (!args.isTuple())
      unpickle_fail(std::string("REDUCE arguments must be a tuple, got ") + args.tagKind());
    const auto& a = args.toTuple();
    switch (newobj
                ? (callable.global == Global::OrderedDict ? Global::OrderedDict : Global::NotGlobal)
                : callable.global) {
      case Global::OrderedDict:
        if (!a.empty()) unpickle_fail("OrderedDict(...) with arguments is not supported");
        return Item{IValue::make_dict(/*ordered=*/true)};
      case Global::RebuildTensorV2: return Item{rebuild_tensor(a)};
      case Global::RebuildParameter: {
        if (a.size() != 3 || !a[0].isTensor() || !a[1].isBool()) {
          unpickle_fail("_rebuild_parameter expects (tensor, bool, OrderedDict)");
        }
        check_hooks(a[2]);
        Tensor t = a[0].toTensor();
        t.requires_grad_(a[1].toBool());
        return Item{t};
      }
      case Global::Device: {
        if (a.empty() || !a[0].isString()) unpickle_fail("torch.device expects a string");
        std::string s = a[0].toStringRef();
        if (a.size() > 1) s += ":" + std::to_string(int_arg(a[1], "device index"));
        return Item{IValue(s)};
      }
      default:
        unpickle_fail(std::string(newobj ? "NEWOBJ" : "REDUCE") + " on " +
                      (callable.global == Global::NotGlobal
                           ? std::string("a ") + callable.v.tagKind()
                           : callable.v.toStringRef()) +
                      " is not supported");
    }
  }

  // ---- the opcodes -------------------------------------------------------------------------
  // Returns true at STOP.
  bool dispatch(uint8_t op) {
    switch (op) {
      case 0x80: {  // PROTO
        const uint8_t proto = u8();
        if (proto < 2 || proto > 5) {
          unpickle_fail(str_cat("unsupported pickle protocol: ", static_cast<int>(proto)));
        }
        break;
      }
      case 0x95: {  // FRAME: a length prefix only; the bytes follow inline.
        const uint64_t n = le(8);
        if (n > static_cast<uint64_t>(end_ - p_)) unpickle_fail("pickle data was truncated");
        break;
      }
      case '.': return true;  // STOP
      case '(': marks_.push_back(stack_.size()); break;
      case '0': pop(); break;
      case '1': pop_mark(); break;
      case 'N': push(IValue()); break;
      case 0x88: push(IValue(true)); break;
      case 0x89: push(IValue(false)); break;
      case 'J': push(IValue(static_cast<int64_t>(static_cast<int32_t>(le(4))))); break;
      case 'K': push(IValue(static_cast<int64_t>(le(1)))); break;
      case 'M': push(IValue(static_cast<int64_t>(le(2)))); break;
      case 0x8a: {  // LONG1: little-endian two's complement of n bytes
        const uint8_t n = u8();
        const uint8_t* b = take(n);
        if (n > 8) {
          // Python writes the shortest form, but a redundant sign byte is still a value that fits.
          for (int i = 8; i < n; ++i) {
            if (b[i] != ((b[7] & 0x80) ? 0xFF : 0x00)) {
              unpickle_fail("LONG1 value does not fit in a 64-bit Int");
            }
          }
        }
        uint64_t v = 0;
        const int used = std::min<int>(n, 8);
        for (int i = used - 1; i >= 0; --i) v = (v << 8) | b[i];
        if (used > 0 && used < 8 && (b[used - 1] & 0x80)) v |= ~uint64_t{0} << (8 * used);
        push(IValue(static_cast<int64_t>(v)));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian double
        const uint8_t* b = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | b[i];
        double d = 0;
        std::memcpy(&d, &bits, 8);
        push(IValue(d));
        break;
      }
      case 'X': push(IValue(bytes(le(4)))); break;    // BINUNICODE
      case 0x8c: push(IValue(bytes(le(1)))); break;   // SHORT_BINUNICODE
      case 0x8d: push(IValue(bytes(le(8)))); break;   // BINUNICODE8
      case 'B': push(IValue(bytes(le(4)))); break;    // BINBYTES
      case 'C': push(IValue(bytes(le(1)))); break;    // SHORT_BINBYTES
      case ')': push(make_tuple({})); break;          // EMPTY_TUPLE
      case 't': push(make_tuple(pop_mark())); break;  // TUPLE
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const std::size_t n = op - 0x84u;
        if (stack_.size() < floor() + n) unpickle_fail("unpickling stack underflow");
        std::vector<Item> items(std::make_move_iterator(stack_.end() - static_cast<long>(n)),
                                std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        push(make_tuple(std::move(items)));
        break;
      }
      case ']': push(IValue(std::vector<IValue>{})); break;  // EMPTY_LIST
      case 'l': {                                            // LIST
        auto items = pop_mark();
        push(IValue(std::vector<IValue>{}));
        append(stack_.back(), std::move(items));
        break;
      }
      case 'a': {  // APPEND
        Item v = pop();
        std::vector<Item> one;
        one.push_back(std::move(v));
        append(top(), std::move(one));
        break;
      }
      case 'e': {  // APPENDS
        auto items = pop_mark();
        append(top(), std::move(items));
        break;
      }
      case '}': push(IValue::make_dict(false)); break;  // EMPTY_DICT
      case 'd': {                                       // DICT
        auto items = pop_mark();
        push(IValue::make_dict(false));
        setitems(stack_.back(), std::move(items));
        break;
      }
      case 's': {  // SETITEM
        std::vector<Item> kv(2);
        kv[1] = pop();
        kv[0] = pop();
        setitems(top(), std::move(kv));
        break;
      }
      case 'u': {  // SETITEMS
        auto items = pop_mark();
        setitems(top(), std::move(items));
        break;
      }
      case 'q': memo_put(le(1)); break;          // BINPUT
      case 'r': memo_put(le(4)); break;          // LONG_BINPUT
      case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
      case 'h': memo_get(le(1)); break;          // BINGET
      case 'j': memo_get(le(4)); break;          // LONG_BINGET
      case 'c': {                                // GLOBAL
        std::string module = line();
        std::string name = line();
        push_global(module, name);
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        Item name = pop();
        Item module = pop();
        if (!name.v.isString() || !module.v.isString() || name.global != Global::NotGlobal ||
            module.global != Global::NotGlobal) {
          unpickle_fail("STACK_GLOBAL requires two strings");
        }
        push_global(module.v.toStringRef(), name.v.toStringRef());
        break;
      }
      case 'R':
      case 0x81: {  // REDUCE, NEWOBJ
        Item args = pop();
        Item callable = pop();
        if (args.global != Global::NotGlobal) unpickle_fail("REDUCE arguments must be a tuple");
        stack_.push_back(call(callable, args.v, op == 0x81));
        break;
      }
      case 'b': {  // BUILD
        Item state = pop();
        Item& obj = top();
        if (!obj.v.isGenericDict() || !obj.v.toGenericDict().ordered) {
          unpickle_fail(std::string("BUILD on a ") + obj.v.tagKind() + " is not supported");
        }
        break;  // an OrderedDict's attributes (a state dict's _metadata): dropped
      }
      case 'Q': {  // BINPERSID
        Item pid = pop();
        if (!persistent_load_) {
          unpickle_fail(
              "A load persistent id instruction was encountered, but no "
              "persistent_load function was specified.");
        }
        push(persistent_load_(pid.v));
        break;
      }
      default:
        unpickle_fail(
            str_cat("Unsupported operand ", static_cast<int>(op), " (opcode 0x", hex(op), ")"));
    }
    return false;
  }

  static std::string hex(uint8_t b) {
    const char* d = "0123456789abcdef";
    return std::string{d[b >> 4], d[b & 15]};
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t copied_ = 0;
  const PersistentLoad& persistent_load_;
  std::vector<Item> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<uint64_t, Item> memo_;
  std::unordered_map<const void*, int> depth_;
  std::unordered_set<const void*> sealed_;
  // The containers depth_ and sealed_ name, held so that their addresses are not reused by new
  // containers while the maps still describe them (one per container the input built).
  std::vector<IValue> keepalive_;
};

// Protocol 2, as torch.save writes by default, memoizing with BINPUT/BINGET as Python does:
// every container, tensor, string and global is memoized once and referred to again with BINGET
// (strings by value, containers and tensors by identity).
class Pickler {
 public:
  explicit Pickler(const PersistentStorageId& storage_id) : storage_id_(storage_id) {}

  std::string run(const IValue& v) {
    out_ += "\x80\x02";
    save(v, 0);
    out_ += '.';
    return std::move(out_);
  }

 private:
  void op(uint8_t c) { out_.push_back(static_cast<char>(c)); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void put() {
    const uint32_t i = next_memo_++;
    if (i < 256) {
      op('q');
      le(i, 1);
    } else {
      op('r');
      le(i, 4);
    }
  }
  void get(uint32_t i) {
    if (i < 256) {
      op('h');
      le(i, 1);
    } else {
      op('j');
      le(i, 4);
    }
  }
  bool memo_hit(const void* id) {
    auto it = memo_ptr_.find(id);
    if (it == memo_ptr_.end()) return false;
    get(it->second);
    return true;
  }
  void memo_add(const void* id) {
    memo_ptr_[id] = next_memo_;
    put();
  }

  void save_int(int64_t v) {
    if (v >= 0 && v <= 0xFF) {
      op('K');
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v <= 0xFFFF) {
      op('M');
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      le(static_cast<uint64_t>(v), 4);
    } else {
      // LONG1 with Python's shortest two's complement encoding.
      int n = 8;
      const auto u = static_cast<uint64_t>(v);
      while (n > 1) {
        const uint8_t hi = static_cast<uint8_t>(u >> (8 * (n - 1)));
        const uint8_t next = static_cast<uint8_t>(u >> (8 * (n - 2)));
        if ((hi == 0x00 && !(next & 0x80)) || (hi == 0xFF && (next & 0x80)))
          --n;
        else
          break;
      }
      op(0x8a);
      le(static_cast<uint64_t>(n), 1);
      le(u, n);
    }
  }
  void save_string(const std::string& s) {
    auto it = memo_str_.find(s);
    if (it != memo_str_.end()) return get(it->second);
    op('X');
    le(s.size(), 4);
    TP_CHECK(s.size() <= 0xFFFFFFFFu, "pickle: string too long for protocol 2");
    out_ += s;
    memo_str_[s] = next_memo_;
    put();
  }
  void save_global(const std::string& module, const std::string& name) {
    const std::string key = module + "\n" + name + "\n";
    auto it = memo_global_.find(key);
    if (it != memo_global_.end()) return get(it->second);
    op('c');
    out_ += key;
    memo_global_[key] = next_memo_;
    put();
  }
  // Python writes tuples of up to three elements with TUPLE1..3, longer ones with MARK ... TUPLE,
  // and memoizes them after their elements.
  template <class F>
  void save_tuple(std::size_t n, F&& save_elements) {
    if (n == 0) return op(')');
    if (n > 3) op('(');
    save_elements();
    op(n > 3 ? 't' : static_cast<uint8_t>(0x84 + n));
    put();
  }
  void save_ints(IntArrayRef v) {
    save_tuple(v.size(), [&] {
      for (int64_t x : v) save_int(x);
    });
  }

  void save_tensor(const Tensor& t, int depth) {
    TP_CHECK(t.defined(), "save: cannot save an undefined tensor");
    if (memo_hit(t.unsafeGetTensorImpl())) return;
    TP_CHECK(static_cast<bool>(storage_id_),
             "pickle: a Tensor needs a persistent storage id (use tensorplay::pickle_save)");
    TP_CHECK_NOT_IMPLEMENTED(t.device().is_cpu(), "save: only CPU tensors can be saved, got a ",
                             t.device().str(), " tensor; call .cpu() first");
    const StorageRef ref = storage_id_(t);
    save_global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    // The persistent id: ('storage', torch.XStorage, key, location, numel), then BINPERSID.
    op('(');
    save_string("storage");
    save_global("torch", std::string(storage_class_name(t.dtype())));
    save_string(ref.key);
    save_string(ref.location);
    save_int(ref.numel);
    op('t');
    put();
    op('Q');
    save_int(t.storage_offset());
    save_ints(t.sizes());
    save_ints(t.strides());
    op(t.requires_grad() ? 0x88 : 0x89);
    save_ordered_dict_header();  // backward_hooks: an empty OrderedDict, memoized as Python does
    put();
    op('t');
    put();
    op('R');
    memo_add(t.unsafeGetTensorImpl());
    (void)depth;
  }
  void save_ordered_dict_header() {
    save_global("collections", "OrderedDict");
    op(')');
    op('R');
  }

  void save_items(const std::vector<IValue>& items, uint8_t one, uint8_t many, int depth) {
    for (std::size_t i = 0; i < items.size(); i += 1000) {
      const std::size_t n = std::min<std::size_t>(1000, items.size() - i);
      if (n > 1) op('(');
      for (std::size_t j = i; j < i + n; ++j) save(items[j], depth + 1);
      op(n > 1 ? many : one);
    }
  }

  void save(const IValue& v, int depth) {
    TP_CHECK(depth <= kMaxNestingDepth, "pickle: nesting deeper than ", kMaxNestingDepth,
             " levels (or a container that contains itself)");
    switch (v.tag()) {
      case IValue::Tag::None: return op('N');
      case IValue::Tag::Bool: return op(v.toBool() ? 0x88 : 0x89);
      case IValue::Tag::Int: return save_int(v.toInt());
      case IValue::Tag::Double: {
        uint64_t bits = 0;
        const double d = v.toDouble();
        std::memcpy(&bits, &d, 8);
        op('G');
        for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
        return;
      }
      case IValue::Tag::String: return save_string(v.toStringRef());
      case IValue::Tag::Tensor: return save_tensor(v.toTensor(), depth);
      case IValue::Tag::List: {
        if (memo_hit(v.container_identity())) return;
        op(']');
        memo_add(v.container_identity());
        return save_items(v.toList(), 'a', 'e', depth);
      }
      case IValue::Tag::Tuple: {
        if (memo_hit(v.container_identity())) return;
        const auto& elems = v.toTuple();
        if (elems.empty()) return op(')');
        if (elems.size() > 3) op('(');
        for (const auto& e : elems) save(e, depth + 1);
        op(elems.size() > 3 ? 't' : static_cast<uint8_t>(0x84 + elems.size()));
        return memo_add(v.container_identity());
      }
      case IValue::Tag::GenericDict: {
        if (memo_hit(v.container_identity())) return;
        const GenericDict& d = v.toGenericDict();
        if (d.ordered)
          save_ordered_dict_header();
        else
          op('}');
        memo_add(v.container_identity());
        std::vector<IValue> flat;
        flat.reserve(2 * d.size());
        for (const auto& kv : d) {
          flat.push_back(kv.first);
          flat.push_back(kv.second);
        }
        // Pairs, batched by 1000 as Python batches them.
        for (std::size_t i = 0; i < flat.size(); i += 2000) {
          const std::size_t n = std::min<std::size_t>(2000, flat.size() - i);
          if (n > 2) op('(');
          for (std::size_t j = i; j < i + n; ++j) save(flat[j], depth + 1);
          op(n > 2 ? 'u' : 's');
        }
        return;
      }
    }
  }

  const PersistentStorageId& storage_id_;
  std::string out_;
  std::unordered_map<const void*, uint32_t> memo_ptr_;
  std::unordered_map<std::string, uint32_t> memo_str_;
  std::unordered_map<std::string, uint32_t> memo_global_;
  uint32_t next_memo_ = 0;
};

}  // namespace detail

// Unpickles `data` (a restricted unpickler: see the file comment). Persistent ids go to
// `persistent_load`; without one, a pickle that has them is refused.
inline IValue unpickle(std::span<const std::byte> data,
                       const PersistentLoad& persistent_load = {}) {
  return detail::Unpickler(data, persistent_load).run();
}
inline IValue unpickle(std::string_view data, const PersistentLoad& persistent_load = {}) {
  return unpickle(std::as_bytes(std::span<const char>(data.data(), data.size())), persistent_load);
}

// Pickles `value` with protocol 2. Tensors are written as torch.save writes them, with the
// storage persistent id `storage_id` gives; without one, a value holding a tensor is refused.
inline std::string pickle(const IValue& value, const PersistentStorageId& storage_id = {}) {
  return detail::Pickler(storage_id).run(value);
}

}  // namespace tensorplay::serialize
