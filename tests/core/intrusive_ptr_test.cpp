// Unit tests for tensorplay::intrusive_ptr / weak_intrusive_ptr.
//
// The cases follow c10/test/util/intrusive_ptr_test.cpp one for one (the SECTION names carry
// the c10 test names). Where c10 splits one scenario into several tests that differ only in
// the final EXPECT (thenPointsToSameObject / thenOldInstanceInvalid / ...), one SECTION runs the
// scenario once and checks all of them; the names list every c10 test covered. Cases beyond
// c10 (destruction order, raw:: functions, weak_use_count, debug checks on stack objects) are
// at the end.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <tensorplay/core/intrusive_ptr.hpp>

namespace core_intrusive_ptr_test {

using tensorplay::intrusive_ptr;
using tensorplay::intrusive_ptr_target;
using tensorplay::make_intrusive;
using tensorplay::weak_intrusive_ptr;

namespace {

class SomeClass0Parameters : public intrusive_ptr_target {};
class SomeClass1Parameter : public intrusive_ptr_target {
 public:
  explicit SomeClass1Parameter(int p) : param(p) {}
  int param;
};
class SomeClass2Parameters : public intrusive_ptr_target {
 public:
  SomeClass2Parameters(int p1, int p2) : param1(p1), param2(p2) {}
  int param1;
  int param2;
};
using SomeClass = SomeClass0Parameters;
struct SomeBaseClass : public intrusive_ptr_target {
  explicit SomeBaseClass(int value) : v(value) {}
  int v;
};
struct SomeChildClass : SomeBaseClass {
  explicit SomeChildClass(int value) : SomeBaseClass(value) {}
};

// Sets resourcesReleased in release_resources() and both flags in the destructor (a destroyed
// object has certainly released its resources, whether or not release_resources() ran).
class DestructableMock : public intrusive_ptr_target {
 public:
  DestructableMock(bool* resourcesReleased, bool* wasDestructed)
      : resourcesReleased_(resourcesReleased), wasDestructed_(wasDestructed) {}
  ~DestructableMock() override {
    *resourcesReleased_ = true;
    *wasDestructed_ = true;
  }
  void release_resources() override { *resourcesReleased_ = true; }

 private:
  bool* resourcesReleased_;
  bool* wasDestructed_;
};

class ChildDestructableMock final : public DestructableMock {
 public:
  ChildDestructableMock(bool* resourcesReleased, bool* wasDestructed)
      : DestructableMock(resourcesReleased, wasDestructed) {}
};

// Alternative null sentinels: addresses of static objects that are never counted.
class NullType1 final {
  static SomeClass singleton_;

 public:
  static constexpr SomeClass* singleton() { return &singleton_; }
};
SomeClass NullType1::singleton_;
class NullType2 final {
  static SomeClass singleton_;

 public:
  static constexpr SomeClass* singleton() { return &singleton_; }
};
SomeClass NullType2::singleton_;

template <class T>
struct IntrusiveAndWeak final {
  IntrusiveAndWeak(intrusive_ptr<T> p) : ptr(std::move(p)), weak(ptr) {}  // NOLINT: implicit
  intrusive_ptr<T> ptr;
  weak_intrusive_ptr<T> weak;
};
template <class T, class... Args>
IntrusiveAndWeak<T> make_weak_intrusive(Args&&... args) {
  return IntrusiveAndWeak<T>(make_intrusive<T>(std::forward<Args>(args)...));
}
// A weak pointer whose object has no strong owner left (already released, memory alive).
template <class T, class... Args>
weak_intrusive_ptr<T> make_weak_only(Args&&... args) {
  auto strong = make_intrusive<T>(std::forward<Args>(args)...);
  return weak_intrusive_ptr<T>(strong);
}
template <class T, class NullType = tensorplay::detail::intrusive_target_default_null_type<T>>
weak_intrusive_ptr<T, NullType> make_invalid_weak() {
  return weak_intrusive_ptr<T, NullType>(intrusive_ptr<T, NullType>());
}

struct WeakReferenceToSelf : public intrusive_ptr_target {
  void release_resources() override { ptr.reset(); }
  weak_intrusive_ptr<intrusive_ptr_target> ptr =
      weak_intrusive_ptr<intrusive_ptr_target>(make_intrusive<intrusive_ptr_target>());
};

// Self-assignment through an alias: the same operation as `x = x` / `x = std::move(x)` without
// tripping -Wself-assign / -Wself-move.
template <class T>
T& self(T& x) {
  return x;
}

}  // namespace

static_assert(std::is_same_v<SomeClass, intrusive_ptr<SomeClass>::element_type>);
static_assert(std::is_same_v<SomeClass, weak_intrusive_ptr<SomeClass>::element_type>);
static_assert(NullType1::singleton() != NullType2::singleton());

// ============================================================================================
// MakeIntrusiveTest
// ============================================================================================

TEST_CASE("MakeIntrusiveTest", "[core][intrusive_ptr]") {
  SECTION("ClassWith0Parameters") {
    intrusive_ptr<SomeClass0Parameters> var = make_intrusive<SomeClass0Parameters>();
    CHECK(var.get() == dynamic_cast<SomeClass0Parameters*>(var.get()));
  }
  SECTION("ClassWith1Parameter") {
    intrusive_ptr<SomeClass1Parameter> var = make_intrusive<SomeClass1Parameter>(5);
    CHECK(var->param == 5);
  }
  SECTION("ClassWith2Parameters") {
    intrusive_ptr<SomeClass2Parameters> var = make_intrusive<SomeClass2Parameters>(7, 2);
    CHECK(var->param1 == 7);
    CHECK(var->param2 == 2);
  }
  SECTION("TypeIsAutoDeductible") {
    auto var2 = make_intrusive<SomeClass0Parameters>();
    auto var3 = make_intrusive<SomeClass1Parameter>(2);
    auto var4 = make_intrusive<SomeClass2Parameters>(2, 3);
    STATIC_REQUIRE(std::is_same_v<decltype(var3), intrusive_ptr<SomeClass1Parameter>>);
    CHECK((var2.defined() && var3.defined() && var4.defined()));
  }
  SECTION("CanAssignToBaseClassPtr") {
    intrusive_ptr<SomeBaseClass> var = make_intrusive<SomeChildClass>(3);
    CHECK(var->v == 3);
  }
}

TEST_CASE("IntrusivePtrTargetTest.whenAllocatedOnStack_thenDoesntCrash", "[core][intrusive_ptr]") {
  SomeClass myClass;
  (void)myClass;
  SUCCEED();
}

// ============================================================================================
// IntrusivePtrTest: access
// ============================================================================================

TEST_CASE("IntrusivePtrTest: get and dereference", "[core][intrusive_ptr]") {
  SECTION("givenValidPtr_whenCallingGet_thenReturnsObject") {
    intrusive_ptr<SomeClass1Parameter> obj = make_intrusive<SomeClass1Parameter>(5);
    CHECK(obj.get()->param == 5);
  }
  SECTION("givenValidPtr_whenCallingConstGet_thenReturnsObject") {
    const intrusive_ptr<SomeClass1Parameter> obj = make_intrusive<SomeClass1Parameter>(5);
    CHECK(obj.get()->param == 5);
  }
  SECTION("givenInvalidPtr_whenCallingGet_thenReturnsNullptr") {
    intrusive_ptr<SomeClass1Parameter> obj;
    CHECK(obj.get() == nullptr);
  }
  SECTION("givenNullptr_whenCallingGet_thenReturnsNullptr") {
    intrusive_ptr<SomeClass1Parameter> obj(nullptr);
    CHECK(obj.get() == nullptr);
  }
  SECTION("givenValidPtr_whenDereferencing_thenReturnsObject") {
    intrusive_ptr<SomeClass1Parameter> obj = make_intrusive<SomeClass1Parameter>(5);
    CHECK((*obj).param == 5);
  }
  SECTION("givenValidPtr_whenConstDereferencing_thenReturnsObject") {
    const intrusive_ptr<SomeClass1Parameter> obj = make_intrusive<SomeClass1Parameter>(5);
    CHECK((*obj).param == 5);
  }
  SECTION("givenValidPtr_whenArrowDereferencing_thenReturnsObject") {
    intrusive_ptr<SomeClass1Parameter> obj = make_intrusive<SomeClass1Parameter>(3);
    CHECK(obj->param == 3);
  }
  SECTION("givenValidPtr_whenConstArrowDereferencing_thenReturnsObject") {
    const intrusive_ptr<SomeClass1Parameter> obj = make_intrusive<SomeClass1Parameter>(3);
    CHECK(obj->param == 3);
  }
}

// ============================================================================================
// IntrusivePtrTest: move assignment
// ============================================================================================

TEST_CASE("IntrusivePtrTest: move assignment", "[core][intrusive_ptr]") {
  SECTION("givenValidPtr_whenMoveAssigning_then{PointsToSameObject,OldInstanceInvalid}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    obj2 = std::move(obj1);
    CHECK(obj2.get() == obj1ptr);
    CHECK_FALSE(obj1.defined());  // NOLINT(bugprone-use-after-move)
  }
  SECTION("givenValidPtr_whenMoveAssigningToSelf_then{PointsToSameObject,StaysValid}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    obj1 = std::move(self(obj1));
    CHECK(obj1.get() == obj1ptr);
    CHECK(obj1.defined());
    CHECK(obj1.use_count() == 1u);
  }
  SECTION("givenInvalidPtr_whenMoveAssigningToSelf_thenStaysInvalid") {
    intrusive_ptr<SomeClass> obj1;
    obj1 = std::move(self(obj1));
    CHECK_FALSE(obj1.defined());
  }
  SECTION("givenInvalidPtr_whenMoveAssigning_then{NewInstanceIsValid,PointsToSameObject}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2;
    SomeClass* obj1ptr = obj1.get();
    obj2 = std::move(obj1);
    CHECK(obj2.defined());
    CHECK(obj2.get() == obj1ptr);
  }
  SECTION("givenValidPtr_whenMoveAssigningFromInvalidPtr_thenNewInstanceIsInvalid") {
    intrusive_ptr<SomeClass> obj1;
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    CHECK(obj2.defined());
    obj2 = std::move(obj1);
    CHECK_FALSE(obj2.defined());
  }
  SECTION(
      "givenValidPtr_whenMoveAssigningToBaseClass_then{PointsToSameObject,OldInstanceInvalid}") {
    intrusive_ptr<SomeChildClass> obj1 = make_intrusive<SomeChildClass>(1);
    intrusive_ptr<SomeBaseClass> obj2 = make_intrusive<SomeBaseClass>(2);
    SomeBaseClass* obj1ptr = obj1.get();
    obj2 = std::move(obj1);
    CHECK(obj2.get() == obj1ptr);
    CHECK(obj2->v == 1);
    CHECK_FALSE(obj1.defined());  // NOLINT(bugprone-use-after-move)
  }
  SECTION(
      "givenInvalidPtr_whenMoveAssigningToBaseClass_then{NewInstanceIsValid,PointsToSameObject}") {
    intrusive_ptr<SomeChildClass> obj1 = make_intrusive<SomeChildClass>(5);
    intrusive_ptr<SomeBaseClass> obj2;
    SomeBaseClass* obj1ptr = obj1.get();
    obj2 = std::move(obj1);
    CHECK(obj2.defined());
    CHECK(obj2.get() == obj1ptr);
    CHECK(obj2->v == 5);
  }
  SECTION("givenInvalidPtr_whenMoveAssigningInvalidPtrToBaseClass_thenNewInstanceIsValid") {
    intrusive_ptr<SomeChildClass> obj1;
    intrusive_ptr<SomeBaseClass> obj2 = make_intrusive<SomeBaseClass>(2);
    CHECK(obj2.defined());
    obj2 = std::move(obj1);
    CHECK_FALSE(obj2.defined());
  }
  SECTION("givenNullPtr_whenMoveAssigningToDifferentNullptr_thenHasNewNullptr") {
    intrusive_ptr<SomeClass, NullType1> obj1;
    intrusive_ptr<SomeClass, NullType2> obj2;
    obj2 = std::move(obj1);
    CHECK(NullType1::singleton() != NullType2::singleton());
    CHECK(obj1.get() == NullType1::singleton());  // NOLINT(bugprone-use-after-move)
    CHECK(obj2.get() == NullType2::singleton());
    CHECK_FALSE(obj1.defined());
    CHECK_FALSE(obj2.defined());
  }
}

// ============================================================================================
// IntrusivePtrTest: copy assignment
// ============================================================================================

TEST_CASE("IntrusivePtrTest: copy assignment", "[core][intrusive_ptr]") {
  SECTION("givenValidPtr_whenCopyAssigning_then{PointsToSameObject,OldInstanceValid}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    obj2 = obj1;
    CHECK(obj2.get() == obj1ptr);
    CHECK(obj1.defined());
  }
  SECTION("givenValidPtr_whenCopyAssigningToSelf_then{PointsToSameObject,StaysValid}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    obj1 = self(obj1);
    CHECK(obj1.get() == obj1ptr);
    CHECK(obj1.defined());
    CHECK(obj1.use_count() == 1u);
  }
  SECTION("givenInvalidPtr_whenCopyAssigningToSelf_thenStaysInvalid") {
    intrusive_ptr<SomeClass> obj1;
    obj1 = self(obj1);
    CHECK_FALSE(obj1.defined());
  }
  SECTION("givenInvalidPtr_whenCopyAssigning_thenNewInstanceIsValid") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2;
    obj2 = obj1;
    CHECK(obj2.defined());
  }
  SECTION(
      "givenValidPtr_whenCopyAssigningToBaseClass_then{PointsToSameObject,OldInstanceInvalid}") {
    // (c10's "OldInstanceInvalid" checks that the source stays defined.)
    intrusive_ptr<SomeChildClass> child = make_intrusive<SomeChildClass>(3);
    intrusive_ptr<SomeBaseClass> base = make_intrusive<SomeBaseClass>(10);
    base = child;
    CHECK(base->v == 3);
    CHECK(child.defined());
  }
  SECTION(
      "givenInvalidPtr_whenCopyAssigningToBaseClass_then{NewInstanceIsValid,PointsToSameObject}") {
    intrusive_ptr<SomeChildClass> obj1 = make_intrusive<SomeChildClass>(5);
    intrusive_ptr<SomeBaseClass> obj2;
    SomeBaseClass* obj1ptr = obj1.get();
    obj2 = obj1;
    CHECK(obj2.defined());
    CHECK(obj2.get() == obj1ptr);
    CHECK(obj2->v == 5);
  }
  SECTION("givenPtr_whenCopyAssigningInvalidPtrToBaseClass_thenNewInstanceIsInvalid") {
    intrusive_ptr<SomeChildClass> obj1;
    intrusive_ptr<SomeBaseClass> obj2 = make_intrusive<SomeBaseClass>(2);
    CHECK(obj2.defined());
    obj2 = obj1;
    CHECK_FALSE(obj2.defined());
  }
  SECTION("givenNullPtr_whenCopyAssigningToDifferentNullptr_thenHasNewNullptr") {
    intrusive_ptr<SomeClass, NullType1> obj1;
    intrusive_ptr<SomeClass, NullType2> obj2;
    obj2 = obj1;
    CHECK(obj1.get() == NullType1::singleton());
    CHECK(obj2.get() == NullType2::singleton());
    CHECK_FALSE(obj1.defined());
    CHECK_FALSE(obj2.defined());
  }
}

// ============================================================================================
// IntrusivePtrTest: move / copy construction
// ============================================================================================

TEST_CASE("IntrusivePtrTest: move construction", "[core][intrusive_ptr]") {
  SECTION(
      "givenPtr_whenMoveConstructing_then{PointsToSameObject,OldInstanceInvalid,"
      "NewInstanceValid}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    intrusive_ptr<SomeClass> obj2 = std::move(obj1);
    CHECK(obj2.get() == obj1ptr);
    CHECK_FALSE(obj1.defined());  // NOLINT(bugprone-use-after-move)
    CHECK(obj2.defined());
  }
  SECTION("givenPtr_whenMoveConstructingFromInvalidPtr_thenNewInstanceInvalid") {
    intrusive_ptr<SomeClass> obj1;
    intrusive_ptr<SomeClass> obj2 = std::move(obj1);
    CHECK_FALSE(obj2.defined());
  }
  SECTION(
      "givenPtr_whenMoveConstructingToBaseClass_then{PointsToSameObject,OldInstanceInvalid,"
      "NewInstanceValid}") {
    intrusive_ptr<SomeChildClass> child = make_intrusive<SomeChildClass>(3);
    SomeBaseClass* objptr = child.get();
    intrusive_ptr<SomeBaseClass> base = std::move(child);
    CHECK(base->v == 3);
    CHECK(base.get() == objptr);
    CHECK_FALSE(child.defined());  // NOLINT(bugprone-use-after-move)
    CHECK(base.defined());
  }
  SECTION("givenPtr_whenMoveConstructingToBaseClassFromInvalidPtr_thenNewInstanceInvalid") {
    intrusive_ptr<SomeChildClass> obj1;
    intrusive_ptr<SomeBaseClass> obj2 = std::move(obj1);
    CHECK_FALSE(obj2.defined());
  }
  SECTION("givenNullPtr_whenMoveConstructingToDifferentNullptr_thenHasNewNullptr") {
    intrusive_ptr<SomeClass, NullType1> obj1;
    intrusive_ptr<SomeClass, NullType2> obj2 = std::move(obj1);
    CHECK(obj1.get() == NullType1::singleton());  // NOLINT(bugprone-use-after-move)
    CHECK(obj2.get() == NullType2::singleton());
    CHECK_FALSE(obj1.defined());
    CHECK_FALSE(obj2.defined());
  }
}

TEST_CASE("IntrusivePtrTest: copy construction", "[core][intrusive_ptr]") {
  SECTION(
      "givenPtr_whenCopyConstructing_then{PointsToSameObject,OldInstanceValid,NewInstanceValid}") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    intrusive_ptr<SomeClass> obj2 = obj1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(obj2.get() == obj1ptr);
    CHECK(obj1.defined());
    CHECK(obj2.defined());
  }
  SECTION("givenPtr_whenCopyConstructingFromInvalidPtr_thenNewInstanceInvalid") {
    intrusive_ptr<SomeClass> obj1;
    intrusive_ptr<SomeClass> obj2 = obj1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK_FALSE(obj2.defined());
  }
  SECTION(
      "givenPtr_whenCopyConstructingToBaseClass_then{PointsToSameObject,OldInstanceInvalid,"
      "NewInstanceInvalid}") {
    // (c10's names notwithstanding, both instances stay valid.)
    intrusive_ptr<SomeChildClass> child = make_intrusive<SomeChildClass>(3);
    SomeBaseClass* objptr = child.get();
    intrusive_ptr<SomeBaseClass> base = child;
    CHECK(base->v == 3);
    CHECK(base.get() == objptr);
    CHECK(child.defined());
    CHECK(base.defined());
  }
  SECTION("givenPtr_whenCopyConstructingToBaseClassFromInvalidPtr_thenNewInstanceInvalid") {
    intrusive_ptr<SomeChildClass> obj1;
    intrusive_ptr<SomeBaseClass> obj2 = obj1;
    CHECK_FALSE(obj2.defined());
  }
  SECTION("givenNullPtr_whenCopyConstructingToDifferentNullptr_thenHasNewNullptr") {
    intrusive_ptr<SomeClass, NullType1> obj1;
    intrusive_ptr<SomeClass, NullType2> obj2 = obj1;
    CHECK(obj1.get() == NullType1::singleton());
    CHECK(obj2.get() == NullType2::singleton());
    CHECK_FALSE(obj1.defined());
    CHECK_FALSE(obj2.defined());
  }
}

// ============================================================================================
// IntrusivePtrTest: swap (free function and member, each scenario run with both)
// ============================================================================================

TEST_CASE("IntrusivePtrTest: swap", "[core][intrusive_ptr]") {
  const auto use_member = GENERATE(false, true);  // SwapFunction* / SwapMethod*
  auto do_swap = [use_member](intrusive_ptr<SomeClass>& a, intrusive_ptr<SomeClass>& b) {
    if (use_member) {
      a.swap(b);
    } else {
      swap(a, b);  // found by ADL, like c10's free swap
    }
  };
  SECTION("SwapFunction / SwapMethod") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.get();
    SomeClass* obj2ptr = obj2.get();
    do_swap(obj1, obj2);
    CHECK(obj1.get() == obj2ptr);
    CHECK(obj2.get() == obj1ptr);
  }
  SECTION("SwapFunctionFromInvalid / SwapMethodFromInvalid") {
    intrusive_ptr<SomeClass> obj1;
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    SomeClass* obj2ptr = obj2.get();
    do_swap(obj1, obj2);
    CHECK(obj1.get() == obj2ptr);
    CHECK(obj1.defined());
    CHECK_FALSE(obj2.defined());
  }
  SECTION("SwapFunctionWithInvalid / SwapMethodWithInvalid") {
    intrusive_ptr<SomeClass> obj1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2;
    SomeClass* obj1ptr = obj1.get();
    do_swap(obj1, obj2);
    CHECK_FALSE(obj1.defined());
    CHECK(obj2.defined());
    CHECK(obj2.get() == obj1ptr);
  }
  SECTION("SwapFunctionInvalidWithInvalid / SwapMethodInvalidWithInvalid") {
    intrusive_ptr<SomeClass> obj1;
    intrusive_ptr<SomeClass> obj2;
    do_swap(obj1, obj2);
    CHECK_FALSE(obj1.defined());
    CHECK_FALSE(obj2.defined());
  }
}

// ============================================================================================
// IntrusivePtrTest: containers, equality, hash, ordering
// ============================================================================================

TEST_CASE("IntrusivePtrTest: containers", "[core][intrusive_ptr]") {
  SECTION("CanBePutInContainer") {
    std::vector<intrusive_ptr<SomeClass1Parameter>> vec;
    vec.push_back(make_intrusive<SomeClass1Parameter>(5));
    CHECK(vec[0]->param == 5);
  }
  SECTION("CanBePutInSet") {
    std::set<intrusive_ptr<SomeClass1Parameter>> set;
    set.insert(make_intrusive<SomeClass1Parameter>(5));
    CHECK((*set.begin())->param == 5);
  }
  SECTION("CanBePutInUnorderedSet") {
    std::unordered_set<intrusive_ptr<SomeClass1Parameter>> set;
    set.insert(make_intrusive<SomeClass1Parameter>(5));
    CHECK((*set.begin())->param == 5);
  }
  SECTION("CanBePutInMap") {
    std::map<intrusive_ptr<SomeClass1Parameter>, intrusive_ptr<SomeClass1Parameter>> map;
    map.insert(std::make_pair(make_intrusive<SomeClass1Parameter>(5),
                              make_intrusive<SomeClass1Parameter>(3)));
    CHECK(map.begin()->first->param == 5);
    CHECK(map.begin()->second->param == 3);
  }
  SECTION("CanBePutInUnorderedMap") {
    std::unordered_map<intrusive_ptr<SomeClass1Parameter>, intrusive_ptr<SomeClass1Parameter>> map;
    map.insert(std::make_pair(make_intrusive<SomeClass1Parameter>(3),
                              make_intrusive<SomeClass1Parameter>(5)));
    CHECK(map.begin()->first->param == 3);
    CHECK(map.begin()->second->param == 5);
  }
}

TEST_CASE("IntrusivePtrTest: equality", "[core][intrusive_ptr]") {
  SECTION("Equality_AfterCopyConstructor") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = var1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(var1 == var2);
    CHECK_FALSE(var1 != var2);
  }
  SECTION("Equality_AfterCopyAssignment") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    var2 = var1;
    CHECK(var1 == var2);
    CHECK_FALSE(var1 != var2);
  }
  SECTION("Equality_Nullptr") {
    intrusive_ptr<SomeClass> var1;
    intrusive_ptr<SomeClass> var2;
    CHECK(var1 == var2);
    CHECK_FALSE(var1 != var2);
  }
  SECTION("Inequality") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(var1 != var2);
    CHECK_FALSE(var1 == var2);
  }
  SECTION("Inequality_NullptrLeft") {
    intrusive_ptr<SomeClass> var1;
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(var1 != var2);
    CHECK_FALSE(var1 == var2);
  }
  SECTION("Inequality_NullptrRight") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2;
    CHECK(var1 != var2);
    CHECK_FALSE(var1 == var2);
  }
  SECTION("comparison with nullptr, both orders (beyond c10's tests)") {
    intrusive_ptr<SomeClass> empty;
    intrusive_ptr<SomeClass> full = make_intrusive<SomeClass>();
    CHECK(empty == nullptr);
    CHECK(nullptr == empty);
    CHECK_FALSE(empty != nullptr);
    CHECK(full != nullptr);
    CHECK(nullptr != full);
    CHECK_FALSE(full == nullptr);
    CHECK_FALSE(static_cast<bool>(empty));
    CHECK(static_cast<bool>(full));
  }
  SECTION("comparison across an upcast and const (beyond c10's tests)") {
    intrusive_ptr<SomeChildClass> child = make_intrusive<SomeChildClass>(1);
    intrusive_ptr<const SomeBaseClass> base = child;
    CHECK(child == base);
    CHECK_FALSE(child != base);
    CHECK_FALSE(child < base);
    CHECK_FALSE(base < child);
  }
}

TEST_CASE("IntrusivePtrTest: hash", "[core][intrusive_ptr]") {
  using Hash = std::hash<intrusive_ptr<SomeClass>>;
  SECTION("HashIsDifferent") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(Hash()(var1) != Hash()(var2));
  }
  SECTION("HashIsDifferent_ValidAndInvalid") {
    intrusive_ptr<SomeClass> var1;
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(Hash()(var1) != Hash()(var2));
  }
  SECTION("HashIsSame_AfterCopyConstructor") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = var1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(Hash()(var1) == Hash()(var2));
  }
  SECTION("HashIsSame_AfterCopyAssignment") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    var2 = var1;
    CHECK(Hash()(var1) == Hash()(var2));
  }
  SECTION("HashIsSame_BothNullptr") {
    intrusive_ptr<SomeClass> var1;
    intrusive_ptr<SomeClass> var2;
    CHECK(Hash()(var1) == Hash()(var2));
  }
}

TEST_CASE("IntrusivePtrTest: std::less", "[core][intrusive_ptr]") {
  using Less = std::less<intrusive_ptr<SomeClass>>;
  SECTION("OneIsLess") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(Less()(var1, var2) != Less()(var2, var1));
    CHECK((var1 < var2) == Less()(var1, var2));  // operator< agrees with std::less
  }
  SECTION("NullptrIsLess1") {
    intrusive_ptr<SomeClass> var1;
    intrusive_ptr<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(Less()(var1, var2));
  }
  SECTION("NullptrIsLess2") {
    intrusive_ptr<SomeClass> var1 = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> var2;
    CHECK_FALSE(Less()(var1, var2));
  }
  SECTION("NullptrIsNotLessThanNullptr") {
    intrusive_ptr<SomeClass> var1;
    intrusive_ptr<SomeClass> var2;
    CHECK_FALSE(Less()(var1, var2));
  }
}

// ============================================================================================
// IntrusivePtrTest: reset and destruction
// ============================================================================================

TEST_CASE("IntrusivePtrTest: reset", "[core][intrusive_ptr]") {
  SECTION("givenPtr_whenCallingReset_thenIsInvalid") {
    auto obj = make_intrusive<SomeClass>();
    CHECK(obj.defined());
    obj.reset();
    CHECK_FALSE(obj.defined());
  }
  SECTION("givenPtr_whenCallingReset_thenHoldsNullptr") {
    auto obj = make_intrusive<SomeClass>();
    CHECK(obj.get() != nullptr);
    obj.reset();
    CHECK(obj.get() == nullptr);
  }
}

TEST_CASE("IntrusivePtrTest: destruction", "[core][intrusive_ptr]") {
  bool resourcesReleased = false;
  bool wasDestructed = false;
  bool dummy = false;

  SECTION("givenPtr_whenDestructed_thenDestructsObject") {
    {
      auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveConstructed_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto obj2 = std::move(obj);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveConstructedToBaseClass_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
    {
      intrusive_ptr<DestructableMock> obj2 = std::move(obj);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveAssigned_thenDestructsOldObject") {
    auto obj = make_intrusive<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenMoveAssignedToBaseClass_thenDestructsOldObject") {
    auto obj = make_intrusive<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithCopy_whenMoveAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_intrusive<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        auto copy = obj2;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = std::move(obj);
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithBaseClassCopy_whenMoveAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_intrusive<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = obj2;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = std::move(obj);
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithCopy_whenMoveAssignedToBaseClass_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_intrusive<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = obj2;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = std::move(obj);
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenMoveAssigned_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto obj2 = make_intrusive<DestructableMock>(&dummy, &dummy);
      obj2 = std::move(obj);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveAssignedToBaseClass_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto obj2 = make_intrusive<DestructableMock>(&dummy, &dummy);
      obj2 = std::move(obj);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenCopyConstructedAndDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = obj;  // NOLINT
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyConstructedToBaseClassAndDestructed_"
      "thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyConstructedAndOriginalDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      intrusive_ptr<DestructableMock> copy = obj;
      obj.reset();
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyConstructedToBaseClassAndOriginalDestructed_"
      "thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      intrusive_ptr<DestructableMock> copy = obj;
      obj.reset();
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenCopyAssignedAndDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = make_intrusive<DestructableMock>(&dummy, &dummy);
        copy = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyAssignedToBaseClassAndDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = make_intrusive<DestructableMock>(&dummy, &dummy);
        copy = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyAssignedAndOriginalDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto copy = make_intrusive<DestructableMock>(&dummy, &dummy);
      {
        auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
        copy = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyAssignedToBaseClassAndOriginalDestructed_"
      "thenDestructsObjectAfterLastDestruction") {
    {
      auto copy = make_intrusive<DestructableMock>(&dummy, &dummy);
      {
        auto obj = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
        copy = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenCopyAssigned_thenDestructsOldObject") {
    auto obj = make_intrusive<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = obj;
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenCopyAssignedToBaseClass_thenDestructsOldObject") {
    auto obj = make_intrusive<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = obj;
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithCopy_whenCopyAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_intrusive<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        auto copy = obj2;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithBaseClassCopy_whenCopyAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_intrusive<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = obj2;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithCopy_whenCopyAssignedToBaseClass_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_intrusive<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        intrusive_ptr<DestructableMock> copy = obj2;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = obj;
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenCallingReset_thenDestructs") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    CHECK_FALSE(resourcesReleased);
    CHECK_FALSE(wasDestructed);
    obj.reset();
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtrWithCopy_whenCallingReset_thenDestructsAfterCopyDestructed") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto copy = obj;
      obj.reset();
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      copy.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithCopy_whenCallingResetOnCopy_thenDestructsAfterOriginalDestructed") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto copy = obj;
      copy.reset();
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithMoved_whenCallingReset_thenDestructsAfterMovedDestructed") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto moved = std::move(obj);
      obj.reset();  // NOLINT(bugprone-use-after-move)
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      moved.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithMoved_whenCallingResetOnMoved_thenDestructsImmediately") {
    auto obj = make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto moved = std::move(obj);
      moved.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
}

// ============================================================================================
// IntrusivePtrTest: const targets
// ============================================================================================

TEST_CASE("IntrusivePtrTest: const", "[core][intrusive_ptr]") {
  SECTION("AllowsMoveConstructingToConst") {
    intrusive_ptr<SomeClass> a = make_intrusive<SomeClass>();
    intrusive_ptr<const SomeClass> b = std::move(a);
    CHECK(b.use_count() == 1u);
  }
  SECTION("AllowsCopyConstructingToConst") {
    intrusive_ptr<SomeClass> a = make_intrusive<SomeClass>();
    intrusive_ptr<const SomeClass> b = a;
    CHECK(b.use_count() == 2u);
  }
  SECTION("AllowsMoveAssigningToConst") {
    intrusive_ptr<SomeClass> a = make_intrusive<SomeClass>();
    intrusive_ptr<const SomeClass> b = make_intrusive<SomeClass>();
    b = std::move(a);
    CHECK(b.use_count() == 1u);
  }
  SECTION("AllowsCopyAssigningToConst") {
    intrusive_ptr<SomeClass> a = make_intrusive<SomeClass>();
    intrusive_ptr<const SomeClass> b = make_intrusive<const SomeClass>();
    b = a;
    CHECK(b.use_count() == 2u);
  }
  SECTION("upcasts only: no implicit downcast or const removal (beyond c10's tests)") {
    STATIC_REQUIRE(
        std::is_convertible_v<intrusive_ptr<SomeChildClass>, intrusive_ptr<SomeBaseClass>>);
    STATIC_REQUIRE_FALSE(
        std::is_convertible_v<intrusive_ptr<SomeBaseClass>, intrusive_ptr<SomeChildClass>>);
    STATIC_REQUIRE_FALSE(
        std::is_convertible_v<intrusive_ptr<const SomeClass>, intrusive_ptr<SomeClass>>);
    STATIC_REQUIRE_FALSE(std::is_constructible_v<intrusive_ptr<SomeClass>, SomeClass*>);
  }
}

// ============================================================================================
// IntrusivePtrTest: use_count / unique
// ============================================================================================

TEST_CASE("IntrusivePtrTest: use_count and unique", "[core][intrusive_ptr]") {
  SECTION("givenNewPtr_then{HasUseCount1,IsUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    CHECK(obj.use_count() == 1u);
    CHECK(obj.unique());
  }
  SECTION("givenEmptyPtr_then{HasUseCount0,IsNotUnique}") {
    intrusive_ptr<SomeClass> obj;
    CHECK(obj.use_count() == 0u);
    CHECK_FALSE(obj.unique());
  }
  SECTION("givenResetPtr_then{HasUseCount0,IsNotUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    obj.reset();
    CHECK(obj.use_count() == 0u);
    CHECK_FALSE(obj.unique());
  }
  SECTION("givenMoveConstructedPtr_then{HasUseCount1,IsUnique,OldHasUseCount0,OldIsNotUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = std::move(obj);
    CHECK(obj2.use_count() == 1u);
    CHECK(obj2.unique());
    CHECK(obj.use_count() == 0u);  // NOLINT(bugprone-use-after-move)
    CHECK_FALSE(obj.unique());
  }
  SECTION("givenMoveAssignedPtr_then{HasUseCount1,IsUnique,OldHasUseCount0,OldIsNotUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    obj2 = std::move(obj);
    CHECK(obj2.use_count() == 1u);
    CHECK(obj2.unique());
    CHECK(obj.use_count() == 0u);  // NOLINT(bugprone-use-after-move)
    CHECK_FALSE(obj.unique());
  }
  SECTION("givenCopyConstructedPtr_then{HasUseCount2,IsNotUnique,OldHasUseCount2,OldIsNotUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = obj;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(obj2.use_count() == 2u);
    CHECK_FALSE(obj2.unique());
    CHECK(obj.use_count() == 2u);
    CHECK_FALSE(obj.unique());
  }
  SECTION("givenCopyConstructedPtr_whenDestructingCopy_then{HasUseCount1,IsUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    {
      intrusive_ptr<SomeClass> obj2 = obj;  // NOLINT(performance-unnecessary-copy-initialization)
      CHECK(obj.use_count() == 2u);
      CHECK_FALSE(obj.unique());
    }
    CHECK(obj.use_count() == 1u);
    CHECK(obj.unique());
  }
  SECTION("givenCopyConstructedPtr_whenReassigningCopy_then{HasUseCount1,IsUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = obj;
    CHECK(obj.use_count() == 2u);
    CHECK_FALSE(obj.unique());
    obj2 = make_intrusive<SomeClass>();
    CHECK(obj.use_count() == 1u);
    CHECK(obj2.use_count() == 1u);
    CHECK(obj.unique());
    CHECK(obj2.unique());
  }
  SECTION("givenCopyAssignedPtr_then{HasUseCount2,IsNotUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    obj2 = obj;
    CHECK(obj.use_count() == 2u);
    CHECK(obj2.use_count() == 2u);
    CHECK_FALSE(obj.unique());
    CHECK_FALSE(obj2.unique());
  }
  SECTION("givenCopyAssignedPtr_whenDestructingCopy_then{HasUseCount1,IsUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    {
      intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
      obj2 = obj;
      CHECK(obj.use_count() == 2u);
      CHECK_FALSE(obj.unique());
    }
    CHECK(obj.use_count() == 1u);
    CHECK(obj.unique());
  }
  SECTION("givenCopyAssignedPtr_whenReassigningCopy_then{HasUseCount1,IsUnique}") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> obj2 = make_intrusive<SomeClass>();
    obj2 = obj;
    CHECK(obj.use_count() == 2u);
    CHECK_FALSE(obj.unique());
    obj2 = make_intrusive<SomeClass>();
    CHECK(obj.use_count() == 1u);
    CHECK(obj2.use_count() == 1u);
    CHECK(obj.unique());
    CHECK(obj2.unique());
  }
}

// ============================================================================================
// IntrusivePtrTest: release / reclaim
// ============================================================================================

TEST_CASE("IntrusivePtrTest: release and reclaim", "[core][intrusive_ptr]") {
  bool resourcesReleased = false;
  bool wasDestructed = false;

  SECTION("givenPtr_whenReleasedAndReclaimed_thenDoesntCrash") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    SomeClass* ptr = obj.release();
    CHECK_FALSE(obj.defined());
    intrusive_ptr<SomeClass> reclaimed = intrusive_ptr<SomeClass>::reclaim(ptr);
    CHECK(reclaimed.use_count() == 1u);
  }
  SECTION("givenPtr_whenReleasedAndReclaimed_thenIsDestructedAtEnd") {
    {
      intrusive_ptr<DestructableMock> outer;
      {
        intrusive_ptr<DestructableMock> inner =
            make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
        DestructableMock* ptr = inner.release();
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        outer = intrusive_ptr<DestructableMock>::reclaim(ptr);
      }
      // inner is destructed
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    // outer is destructed
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenStackObject_whenReclaimed_thenCrashes (commented out in c10; enforced here)") {
    // c10's reclaim lets a count of 0 through, so its test is disabled; ours requires an owned
    // pointer in debug builds, so a stack object is refused before it can be "freed".
    SomeClass obj;
#if TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
    intrusive_ptr<SomeClass> ptr;
    CHECK_THROWS_AS(ptr = intrusive_ptr<SomeClass>::reclaim(&obj), tensorplay::Error);
    CHECK_FALSE(ptr.defined());
    CHECK_THROWS_AS(intrusive_ptr<SomeClass>::unsafe_reclaim_from_nonowning(&obj),
                    tensorplay::Error);
#else
    SUCCEED("debug checks disabled: reclaiming a stack object is undefined behaviour");
#endif
  }
  SECTION("givenPtr_whenNonOwningReclaimed_thenDoesntCrash") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    SomeClass* raw_ptr = obj.get();
    CHECK(obj.defined());
    intrusive_ptr<SomeClass> reclaimed =
        intrusive_ptr<SomeClass>::unsafe_reclaim_from_nonowning(raw_ptr);
    CHECK(reclaimed.defined());
    CHECK(reclaimed.get() == obj.get());
    CHECK(obj.use_count() == 2u);
  }
  SECTION("givenPtr_whenNonOwningReclaimed_thenIsDestructedAtEnd") {
    {
      intrusive_ptr<DestructableMock> outer;
      {
        intrusive_ptr<DestructableMock> inner =
            make_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
        DestructableMock* raw_ptr = inner.get();
        outer = intrusive_ptr<DestructableMock>::unsafe_reclaim_from_nonowning(raw_ptr);
      }
      // inner is destructed
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    // outer is destructed
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("reclaim_copy adds a reference and leaves the raw owner intact (beyond c10's tests)") {
    intrusive_ptr<SomeClass> obj = make_intrusive<SomeClass>();
    SomeClass* owning = obj.release();
    {
      auto copy = intrusive_ptr<SomeClass>::reclaim_copy(owning);
      CHECK(copy.use_count() == 2u);
    }
    auto back = intrusive_ptr<SomeClass>::reclaim(owning);
    CHECK(back.use_count() == 1u);
  }
  SECTION("construction from std::unique_ptr adopts the object (beyond c10's tests)") {
    {
      intrusive_ptr<DestructableMock> p(
          std::make_unique<DestructableMock>(&resourcesReleased, &wasDestructed));
      CHECK(p.use_count() == 1u);
      CHECK(p.weak_use_count() == 1u);
    }
    CHECK(wasDestructed);
  }
}

// ============================================================================================
// WeakIntrusivePtrTest: lock, assignment, construction
// ============================================================================================

TEST_CASE("WeakIntrusivePtrTest: lock", "[core][intrusive_ptr]") {
  SECTION("givenPtr_whenCreatingAndDestructing_thenDoesntCrash") {
    IntrusiveAndWeak<SomeClass> var = make_weak_intrusive<SomeClass>();
    CHECK_FALSE(var.weak.expired());
  }
  SECTION("givenPtr_whenLocking_thenReturnsCorrectObject") {
    IntrusiveAndWeak<SomeClass> var = make_weak_intrusive<SomeClass>();
    intrusive_ptr<SomeClass> locked = var.weak.lock();
    CHECK(locked.get() == var.ptr.get());
    CHECK(var.ptr.use_count() == 2u);
  }
  SECTION("expiredPtr_whenLocking_thenReturnsNullType") {
    IntrusiveAndWeak<SomeClass> var = make_weak_intrusive<SomeClass>();
    var.ptr.reset();
    CHECK(var.weak.expired());
    intrusive_ptr<SomeClass> locked = var.weak.lock();
    CHECK_FALSE(locked.defined());
  }
  SECTION("weakNullPtr_locking") {
    auto weak_ptr = make_invalid_weak<SomeClass>();
    intrusive_ptr<SomeClass> locked = weak_ptr.lock();
    CHECK_FALSE(locked.defined());
  }
  SECTION("vector_insert_weak_intrusive") {
    std::vector<weak_intrusive_ptr<SomeClass>> priorWorks;
    std::vector<intrusive_ptr<SomeClass>> wips;
    wips.push_back(make_intrusive<SomeClass>());
    priorWorks.insert(priorWorks.end(), wips.begin(), wips.end());
    CHECK(priorWorks.size() == 1u);
    CHECK(priorWorks[0].lock() == wips[0]);
  }
}

TEST_CASE("WeakIntrusivePtrTest: move assignment", "[core][intrusive_ptr]") {
  SECTION("givenValidPtr_whenMoveAssigning_then{PointsToSameObject,OldInstanceInvalid}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj2.weak = std::move(obj1.weak);
    CHECK(obj2.weak.lock().get() == obj1ptr);
    CHECK(obj1.weak.expired());  // NOLINT(bugprone-use-after-move)
  }
  SECTION("givenInvalidPtr_whenMoveAssigning_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_invalid_weak<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj2 = std::move(obj1.weak);
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
  }
  SECTION("givenValidPtr_whenMoveAssigningToSelf_then{PointsToSameObject,StaysValid}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj1.weak = std::move(self(obj1.weak));
    CHECK(obj1.weak.lock().get() == obj1ptr);
    CHECK_FALSE(obj1.weak.expired());
    CHECK(obj1.ptr.weak_use_count() == 2u);
  }
  SECTION("givenInvalidPtr_whenMoveAssigningToSelf_thenStaysInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    obj1 = std::move(self(obj1));
    CHECK(obj1.expired());
  }
  SECTION("givenWeakOnlyPtr_whenMoveAssigning_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_weak_only<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj2 = std::move(obj1.weak);
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
  }
  SECTION("givenWeakOnlyPtr_whenMoveAssigningToSelf_then{StaysInvalid,PointsToSameObject}") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    SomeClass* obj1ptr = obj1.lock().get();
    obj1 = std::move(self(obj1));
    CHECK(obj1.expired());
    CHECK(obj1.lock().get() == obj1ptr);
    CHECK(obj1.weak_use_count() == 1u);
  }
  SECTION("givenValidPtr_whenMoveAssigningFromInvalidPtr_thenNewInstanceIsInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    CHECK_FALSE(obj2.weak.expired());
    obj2.weak = std::move(obj1);
    CHECK(obj2.weak.expired());
  }
  SECTION("givenValidPtr_whenMoveAssigningFromWeakOnlyPtr_thenNewInstanceIsInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    CHECK_FALSE(obj2.weak.expired());
    obj2.weak = std::move(obj1);
    CHECK(obj2.weak.expired());
  }
  SECTION(
      "givenValidPtr_whenMoveAssigningToBaseClass_then{PointsToSameObject,OldInstanceInvalid}") {
    IntrusiveAndWeak<SomeChildClass> obj1 = make_weak_intrusive<SomeChildClass>(1);
    IntrusiveAndWeak<SomeBaseClass> obj2 = make_weak_intrusive<SomeBaseClass>(2);
    SomeBaseClass* obj1ptr = obj1.weak.lock().get();
    obj2.weak = std::move(obj1.weak);
    CHECK(obj2.weak.lock().get() == obj1ptr);
    CHECK(obj2.weak.lock()->v == 1);
    CHECK(obj1.weak.expired());  // NOLINT(bugprone-use-after-move)
  }
  SECTION(
      "givenInvalidPtr_whenMoveAssigningToBaseClass_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeChildClass> obj1 = make_weak_intrusive<SomeChildClass>(5);
    weak_intrusive_ptr<SomeBaseClass> obj2 = make_invalid_weak<SomeBaseClass>();
    SomeBaseClass* obj1ptr = obj1.weak.lock().get();
    obj2 = std::move(obj1.weak);
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
    CHECK(obj2.lock()->v == 5);
  }
  SECTION("givenInvalidPtr_whenMoveAssigningInvalidPtrToBaseClass_thenNewInstanceIsValid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_invalid_weak<SomeChildClass>();
    IntrusiveAndWeak<SomeBaseClass> obj2 = make_weak_intrusive<SomeBaseClass>(2);
    CHECK_FALSE(obj2.weak.expired());
    obj2.weak = std::move(obj1);
    CHECK(obj2.weak.expired());
  }
  SECTION(
      "givenWeakOnlyPtr_whenMoveAssigningToBaseClass_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeChildClass> obj1 = make_weak_intrusive<SomeChildClass>(5);
    weak_intrusive_ptr<SomeBaseClass> obj2 = make_weak_only<SomeBaseClass>(2);
    SomeBaseClass* obj1ptr = obj1.weak.lock().get();
    obj2 = std::move(obj1.weak);
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
    CHECK(obj2.lock()->v == 5);
  }
  SECTION("givenWeakOnlyPtr_whenMoveAssigningInvalidPtrToBaseClass_thenNewInstanceIsValid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_weak_only<SomeChildClass>(5);
    IntrusiveAndWeak<SomeBaseClass> obj2 = make_weak_intrusive<SomeBaseClass>(2);
    CHECK_FALSE(obj2.weak.expired());
    obj2.weak = std::move(obj1);
    CHECK(obj2.weak.expired());
  }
  SECTION("givenNullPtr_whenMoveAssigningToDifferentNullptr_thenHasNewNullptr") {
    weak_intrusive_ptr<SomeClass, NullType1> obj1 = make_invalid_weak<SomeClass, NullType1>();
    weak_intrusive_ptr<SomeClass, NullType2> obj2 = make_invalid_weak<SomeClass, NullType2>();
    obj2 = std::move(obj1);
    CHECK(obj1.expired());  // NOLINT(bugprone-use-after-move)
    CHECK(obj2.expired());
    CHECK(obj1._unsafe_get_target() == NullType1::singleton());
    CHECK(obj2._unsafe_get_target() == NullType2::singleton());
  }
}

TEST_CASE("WeakIntrusivePtrTest: copy assignment", "[core][intrusive_ptr]") {
  SECTION("givenValidPtr_whenCopyAssigning_then{PointsToSameObject,OldInstanceValid}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj2.weak = obj1.weak;
    CHECK(obj2.weak.lock().get() == obj1ptr);
    CHECK_FALSE(obj1.weak.expired());
  }
  SECTION("givenValidPtr_whenCopyAssigningToSelf_then{PointsToSameObject,StaysValid}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj1.weak = self(obj1.weak);
    CHECK(obj1.weak.lock().get() == obj1ptr);
    CHECK_FALSE(obj1.weak.expired());
    CHECK(obj1.ptr.weak_use_count() == 2u);
  }
  SECTION("givenInvalidPtr_whenCopyAssigning_thenNewInstanceIsValid") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_invalid_weak<SomeClass>();
    obj2 = obj1.weak;
    CHECK_FALSE(obj2.expired());
  }
  SECTION("givenInvalidPtr_whenCopyAssigningToSelf_thenStaysInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    obj1 = self(obj1);
    CHECK(obj1.expired());
  }
  SECTION("givenWeakOnlyPtr_whenCopyAssigning_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_weak_only<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    obj2 = obj1.weak;
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
  }
  SECTION("givenWeakOnlyPtr_whenCopyAssigningToSelf_then{StaysInvalid,PointsToSameObject}") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    SomeClass* obj1ptr = obj1.lock().get();
    obj1 = self(obj1);
    CHECK(obj1.expired());
    CHECK(obj1.lock().get() == obj1ptr);
    CHECK(obj1.weak_use_count() == 1u);
  }
  SECTION(
      "givenValidPtr_whenCopyAssigningToBaseClass_then{PointsToSameObject,OldInstanceInvalid}") {
    IntrusiveAndWeak<SomeChildClass> child = make_weak_intrusive<SomeChildClass>(3);
    IntrusiveAndWeak<SomeBaseClass> base = make_weak_intrusive<SomeBaseClass>(10);
    base.weak = child.weak;
    CHECK(base.weak.lock()->v == 3);
    CHECK_FALSE(child.weak.expired());
  }
  SECTION(
      "givenInvalidPtr_whenCopyAssigningToBaseClass_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeChildClass> obj1 = make_weak_intrusive<SomeChildClass>(5);
    weak_intrusive_ptr<SomeBaseClass> obj2 = make_invalid_weak<SomeBaseClass>();
    SomeBaseClass* obj1ptr = obj1.weak.lock().get();
    obj2 = obj1.weak;
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
    CHECK(obj2.lock()->v == 5);
  }
  SECTION("givenPtr_whenCopyAssigningInvalidPtrToBaseClass_thenNewInstanceIsInvalid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_invalid_weak<SomeChildClass>();
    IntrusiveAndWeak<SomeBaseClass> obj2 = make_weak_intrusive<SomeBaseClass>(2);
    CHECK_FALSE(obj2.weak.expired());
    obj2.weak = obj1;
    CHECK(obj2.weak.expired());
  }
  SECTION(
      "givenWeakOnlyPtr_whenCopyAssigningToBaseClass_then{NewInstanceIsValid,PointsToSameObject}") {
    IntrusiveAndWeak<SomeChildClass> obj1 = make_weak_intrusive<SomeChildClass>(5);
    weak_intrusive_ptr<SomeBaseClass> obj2 = make_weak_only<SomeBaseClass>(2);
    SomeBaseClass* obj1ptr = obj1.weak.lock().get();
    obj2 = obj1.weak;
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
    CHECK(obj2.lock()->v == 5);
  }
  SECTION("givenPtr_whenCopyAssigningWeakOnlyPtrToBaseClass_thenNewInstanceIsValid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_weak_only<SomeChildClass>(2);
    IntrusiveAndWeak<SomeBaseClass> obj2 = make_weak_intrusive<SomeBaseClass>(2);
    CHECK_FALSE(obj2.weak.expired());
    obj2.weak = obj1;
    CHECK(obj2.weak.expired());
  }
  SECTION("givenNullPtr_whenCopyAssigningToDifferentNullptr_thenHasNewNullptr") {
    weak_intrusive_ptr<SomeClass, NullType1> obj1 = make_invalid_weak<SomeClass, NullType1>();
    weak_intrusive_ptr<SomeClass, NullType2> obj2 = make_invalid_weak<SomeClass, NullType2>();
    obj2 = obj1;
    CHECK(obj1.expired());
    CHECK(obj2.expired());
    CHECK(obj2._unsafe_get_target() == NullType2::singleton());
  }
  SECTION("assignment from an intrusive_ptr (beyond c10's tests)") {
    auto strong = make_intrusive<SomeChildClass>(4);
    weak_intrusive_ptr<SomeBaseClass> weak;
    weak = strong;
    CHECK(weak.lock()->v == 4);
    CHECK(strong.weak_use_count() == 2u);
  }
}

TEST_CASE("WeakIntrusivePtrTest: move construction", "[core][intrusive_ptr]") {
  SECTION(
      "givenPtr_whenMoveConstructing_then{PointsToSameObject,OldInstanceInvalid,"
      "NewInstanceValid}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    weak_intrusive_ptr<SomeClass> obj2 = std::move(obj1.weak);
    CHECK(obj2.lock().get() == obj1ptr);
    CHECK(obj1.weak.expired());  // NOLINT(bugprone-use-after-move)
    CHECK_FALSE(obj2.expired());
  }
  SECTION("givenPtr_whenMoveConstructingFromInvalidPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = std::move(obj1);
    CHECK(obj2.expired());
  }
  SECTION("givenPtr_whenMoveConstructingFromWeakOnlyPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = std::move(obj1);
    CHECK(obj2.expired());
  }
  SECTION(
      "givenPtr_whenMoveConstructingToBaseClass_then{PointsToSameObject,OldInstanceInvalid,"
      "NewInstanceValid}") {
    IntrusiveAndWeak<SomeChildClass> child = make_weak_intrusive<SomeChildClass>(3);
    SomeBaseClass* objptr = child.weak.lock().get();
    weak_intrusive_ptr<SomeBaseClass> base = std::move(child.weak);
    CHECK(base.lock()->v == 3);
    CHECK(base.lock().get() == objptr);
    CHECK(child.weak.expired());  // NOLINT(bugprone-use-after-move)
    CHECK_FALSE(base.expired());
  }
  SECTION("givenPtr_whenMoveConstructingToBaseClassFromInvalidPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_invalid_weak<SomeChildClass>();
    weak_intrusive_ptr<SomeBaseClass> obj2 = std::move(obj1);
    CHECK(obj2.expired());
  }
  SECTION("givenPtr_whenMoveConstructingToBaseClassFromWeakOnlyPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_weak_only<SomeChildClass>(2);
    weak_intrusive_ptr<SomeBaseClass> obj2 = std::move(obj1);
    CHECK(obj2.expired());
  }
  SECTION("givenNullPtr_whenMoveConstructingToDifferentNullptr_thenHasNewNullptr") {
    weak_intrusive_ptr<SomeClass, NullType1> obj1 = make_invalid_weak<SomeClass, NullType1>();
    weak_intrusive_ptr<SomeClass, NullType2> obj2 = std::move(obj1);
    CHECK(obj1.expired());  // NOLINT(bugprone-use-after-move)
    CHECK(obj2.expired());
    CHECK(obj2._unsafe_get_target() == NullType2::singleton());
  }
}

TEST_CASE("WeakIntrusivePtrTest: copy construction", "[core][intrusive_ptr]") {
  SECTION(
      "givenPtr_whenCopyConstructing_then{PointsToSameObject,OldInstanceValid,NewInstanceValid}") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    weak_intrusive_ptr<SomeClass> obj2 = obj1.weak;
    CHECK(obj2.lock().get() == obj1ptr);
    CHECK_FALSE(obj1.weak.expired());
    CHECK_FALSE(obj2.expired());
  }
  SECTION("givenPtr_whenCopyConstructingFromInvalidPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 =
        obj1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(obj2.expired());
  }
  SECTION("givenPtr_whenCopyConstructingFromWeakOnlyPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 =
        obj1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(obj2.expired());
  }
  SECTION(
      "givenPtr_whenCopyConstructingToBaseClass_then{PointsToSameObject,OldInstanceInvalid,"
      "NewInstanceInvalid}") {
    IntrusiveAndWeak<SomeChildClass> child = make_weak_intrusive<SomeChildClass>(3);
    SomeBaseClass* objptr = child.weak.lock().get();
    weak_intrusive_ptr<SomeBaseClass> base = child.weak;
    CHECK(base.lock()->v == 3);
    CHECK(base.lock().get() == objptr);
    CHECK_FALSE(child.weak.expired());
    CHECK_FALSE(base.expired());
  }
  SECTION("givenPtr_whenCopyConstructingToBaseClassFromInvalidPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_invalid_weak<SomeChildClass>();
    weak_intrusive_ptr<SomeBaseClass> obj2 = obj1;
    CHECK(obj2.expired());
  }
  SECTION("givenPtr_whenCopyConstructingToBaseClassFromWeakOnlyPtr_thenNewInstanceInvalid") {
    weak_intrusive_ptr<SomeChildClass> obj1 = make_weak_only<SomeChildClass>(2);
    weak_intrusive_ptr<SomeBaseClass> obj2 = obj1;
    CHECK(obj2.expired());
  }
  SECTION("givenNullPtr_whenCopyConstructingToDifferentNullptr_thenHasNewNullptr") {
    weak_intrusive_ptr<SomeClass, NullType1> obj1 = make_invalid_weak<SomeClass, NullType1>();
    weak_intrusive_ptr<SomeClass, NullType2> obj2 = obj1;
    CHECK(obj1.expired());
    CHECK(obj2.expired());
    CHECK(obj2._unsafe_get_target() == NullType2::singleton());
  }
}

// ============================================================================================
// WeakIntrusivePtrTest: swap
// ============================================================================================

TEST_CASE("WeakIntrusivePtrTest: swap", "[core][intrusive_ptr]") {
  const auto use_member = GENERATE(false, true);  // SwapFunction* / SwapMethod*
  auto do_swap = [use_member](weak_intrusive_ptr<SomeClass>& a, weak_intrusive_ptr<SomeClass>& b) {
    if (use_member) {
      a.swap(b);
    } else {
      swap(a, b);
    }
  };
  SECTION("SwapFunction / SwapMethod") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    SomeClass* obj2ptr = obj2.weak.lock().get();
    do_swap(obj1.weak, obj2.weak);
    CHECK(obj1.weak.lock().get() == obj2ptr);
    CHECK(obj2.weak.lock().get() == obj1ptr);
  }
  SECTION("SwapFunctionFromInvalid / SwapMethodFromInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    SomeClass* obj2ptr = obj2.weak.lock().get();
    do_swap(obj1, obj2.weak);
    CHECK(obj1.lock().get() == obj2ptr);
    CHECK_FALSE(obj1.expired());
    CHECK(obj2.weak.expired());
  }
  SECTION("SwapFunctionWithInvalid / SwapMethodWithInvalid") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_invalid_weak<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    do_swap(obj1.weak, obj2);
    CHECK(obj1.weak.expired());
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
  }
  SECTION("SwapFunctionInvalidWithInvalid / SwapMethodInvalidWithInvalid") {
    weak_intrusive_ptr<SomeClass> obj1 = make_invalid_weak<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_invalid_weak<SomeClass>();
    do_swap(obj1, obj2);
    CHECK(obj1.expired());
    CHECK(obj2.expired());
  }
  SECTION("SwapFunctionFromWeakOnlyPtr / SwapMethodFromWeakOnlyPtr") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    SomeClass* obj2ptr = obj2.weak.lock().get();
    do_swap(obj1, obj2.weak);
    CHECK(obj1.lock().get() == obj2ptr);
    CHECK_FALSE(obj1.expired());
    CHECK(obj2.weak.expired());
  }
  SECTION("SwapFunctionWithWeakOnlyPtr / SwapMethodWithWeakOnlyPtr") {
    IntrusiveAndWeak<SomeClass> obj1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_weak_only<SomeClass>();
    SomeClass* obj1ptr = obj1.weak.lock().get();
    do_swap(obj1.weak, obj2);
    CHECK(obj1.weak.expired());
    CHECK_FALSE(obj2.expired());
    CHECK(obj2.lock().get() == obj1ptr);
  }
  SECTION("SwapFunctionWeakOnlyPtrWithWeakOnlyPtr / SwapMethodWeakOnlyPtrWithWeakOnlyPtr") {
    weak_intrusive_ptr<SomeClass> obj1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = make_weak_only<SomeClass>();
    SomeClass* obj1raw = obj1._unsafe_get_target();
    do_swap(obj1, obj2);
    CHECK(obj1.expired());
    CHECK(obj2.expired());
    CHECK(obj2._unsafe_get_target() == obj1raw);
  }
}

// ============================================================================================
// WeakIntrusivePtrTest: containers, equality, hash, ordering
// ============================================================================================

TEST_CASE("WeakIntrusivePtrTest: containers", "[core][intrusive_ptr]") {
  SECTION("CanBePutInContainer") {
    std::vector<weak_intrusive_ptr<SomeClass1Parameter>> vec;
    IntrusiveAndWeak<SomeClass1Parameter> obj = make_weak_intrusive<SomeClass1Parameter>(5);
    vec.push_back(obj.weak);
    CHECK(vec[0].lock()->param == 5);
  }
  SECTION("CanBePutInSet") {
    std::set<weak_intrusive_ptr<SomeClass1Parameter>> set;
    IntrusiveAndWeak<SomeClass1Parameter> obj = make_weak_intrusive<SomeClass1Parameter>(5);
    set.insert(obj.weak);
    CHECK(set.begin()->lock()->param == 5);
  }
  SECTION("CanBePutInUnorderedSet") {
    std::unordered_set<weak_intrusive_ptr<SomeClass1Parameter>> set;
    IntrusiveAndWeak<SomeClass1Parameter> obj = make_weak_intrusive<SomeClass1Parameter>(5);
    set.insert(obj.weak);
    CHECK(set.begin()->lock()->param == 5);
  }
  SECTION("CanBePutInMap") {
    std::map<weak_intrusive_ptr<SomeClass1Parameter>, weak_intrusive_ptr<SomeClass1Parameter>> map;
    IntrusiveAndWeak<SomeClass1Parameter> obj1 = make_weak_intrusive<SomeClass1Parameter>(5);
    IntrusiveAndWeak<SomeClass1Parameter> obj2 = make_weak_intrusive<SomeClass1Parameter>(3);
    map.insert(std::make_pair(obj1.weak, obj2.weak));
    CHECK(map.begin()->first.lock()->param == 5);
    CHECK(map.begin()->second.lock()->param == 3);
  }
  SECTION("CanBePutInUnorderedMap") {
    std::unordered_map<weak_intrusive_ptr<SomeClass1Parameter>,
                       weak_intrusive_ptr<SomeClass1Parameter>>
        map;
    IntrusiveAndWeak<SomeClass1Parameter> obj1 = make_weak_intrusive<SomeClass1Parameter>(5);
    IntrusiveAndWeak<SomeClass1Parameter> obj2 = make_weak_intrusive<SomeClass1Parameter>(3);
    map.insert(std::make_pair(obj1.weak, obj2.weak));
    CHECK(map.begin()->first.lock()->param == 5);
    CHECK(map.begin()->second.lock()->param == 3);
  }
}

TEST_CASE("WeakIntrusivePtrTest: equality", "[core][intrusive_ptr]") {
  SECTION("Equality_AfterCopyConstructor") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = var1.weak;
    CHECK(var1.weak == var2);
    CHECK_FALSE(var1.weak != var2);
  }
  SECTION("Equality_AfterCopyAssignment") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    var2.weak = var1.weak;
    CHECK(var1.weak == var2.weak);
    CHECK_FALSE(var1.weak != var2.weak);
  }
  SECTION("Equality_AfterCopyAssignment_WeakOnly") {
    weak_intrusive_ptr<SomeClass> var1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 =
        var1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(var1 == var2);
    CHECK_FALSE(var1 != var2);
  }
  SECTION("Equality_Invalid") {
    weak_intrusive_ptr<SomeClass> var1 = make_invalid_weak<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_invalid_weak<SomeClass>();
    CHECK(var1 == var2);
    CHECK_FALSE(var1 != var2);
  }
  SECTION("Inequality") {
    IntrusiveAndWeak<SomeClass> var1 = make_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(var1.weak != var2.weak);
    CHECK_FALSE(var1.weak == var2.weak);
  }
  SECTION("Inequality_InvalidLeft") {
    weak_intrusive_ptr<SomeClass> var1 = make_invalid_weak<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_intrusive<SomeClass>();
    CHECK(var1 != var2.weak);
    CHECK_FALSE(var1 == var2.weak);
  }
  SECTION("Inequality_InvalidRight") {
    IntrusiveAndWeak<SomeClass> var1 = make_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_invalid_weak<SomeClass>();
    CHECK(var1.weak != var2);
    CHECK_FALSE(var1.weak == var2);
  }
  SECTION("Inequality_WeakOnly") {
    weak_intrusive_ptr<SomeClass> var1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_weak_only<SomeClass>();
    CHECK(var1 != var2);
    CHECK_FALSE(var1 == var2);
  }
}

TEST_CASE("WeakIntrusivePtrTest: hash", "[core][intrusive_ptr]") {
  using Hash = std::hash<weak_intrusive_ptr<SomeClass>>;
  SECTION("HashIsDifferent") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    CHECK(Hash()(var1.weak) != Hash()(var2.weak));
  }
  SECTION("HashIsDifferent_ValidAndInvalid") {
    weak_intrusive_ptr<SomeClass> var1 = make_invalid_weak<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    CHECK(Hash()(var1) != Hash()(var2.weak));
  }
  SECTION("HashIsDifferent_ValidAndWeakOnly") {
    weak_intrusive_ptr<SomeClass> var1 = make_weak_only<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    CHECK(Hash()(var1) != Hash()(var2.weak));
  }
  SECTION("HashIsDifferent_WeakOnlyAndWeakOnly") {
    weak_intrusive_ptr<SomeClass> var1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_weak_only<SomeClass>();
    CHECK(Hash()(var1) != Hash()(var2));
  }
  SECTION("HashIsSame_AfterCopyConstructor") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = var1.weak;
    CHECK(Hash()(var1.weak) == Hash()(var2));
  }
  SECTION("HashIsSame_AfterCopyConstructor_WeakOnly") {
    weak_intrusive_ptr<SomeClass> var1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 =
        var1;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(Hash()(var1) == Hash()(var2));
  }
  SECTION("HashIsSame_AfterCopyAssignment") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    var2.weak = var1.weak;
    CHECK(Hash()(var1.weak) == Hash()(var2.weak));
  }
  SECTION("HashIsSame_AfterCopyAssignment_WeakOnly") {
    weak_intrusive_ptr<SomeClass> var1 = make_weak_only<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_invalid_weak<SomeClass>();
    var2 = var1;
    CHECK(Hash()(var1) == Hash()(var2));
  }
  SECTION("HashIsSame_BothInvalid") {
    weak_intrusive_ptr<SomeClass> var1 = make_invalid_weak<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_invalid_weak<SomeClass>();
    CHECK(Hash()(var1) == Hash()(var2));
  }
}

TEST_CASE("WeakIntrusivePtrTest: std::less", "[core][intrusive_ptr]") {
  using Less = std::less<weak_intrusive_ptr<SomeClass>>;
  SECTION("OneIsLess") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    CHECK(Less()(var1.weak, var2.weak) != Less()(var2.weak, var1.weak));
    CHECK((var1.weak < var2.weak) == Less()(var1.weak, var2.weak));
  }
  SECTION("InvalidIsLess1") {
    weak_intrusive_ptr<SomeClass> var1 = make_invalid_weak<SomeClass>();
    IntrusiveAndWeak<SomeClass> var2 = make_weak_intrusive<SomeClass>();
    CHECK(Less()(var1, var2.weak));
  }
  SECTION("InvalidIsLess2") {
    IntrusiveAndWeak<SomeClass> var1 = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_invalid_weak<SomeClass>();
    CHECK_FALSE(Less()(var1.weak, var2));
  }
  SECTION("InvalidIsNotLessThanInvalid") {
    weak_intrusive_ptr<SomeClass> var1 = make_invalid_weak<SomeClass>();
    weak_intrusive_ptr<SomeClass> var2 = make_invalid_weak<SomeClass>();
    CHECK_FALSE(Less()(var1, var2));
  }
}

// ============================================================================================
// WeakIntrusivePtrTest: reset, const, use_count / expired
// ============================================================================================

TEST_CASE("WeakIntrusivePtrTest: reset", "[core][intrusive_ptr]") {
  SECTION("givenPtr_whenCallingResetOnWeakPtr_thenIsInvalid") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    CHECK_FALSE(obj.weak.expired());
    obj.weak.reset();
    CHECK(obj.weak.expired());
  }
  SECTION("givenPtr_whenCallingResetOnStrongPtr_thenIsInvalid") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    CHECK_FALSE(obj.weak.expired());
    obj.ptr.reset();
    CHECK(obj.weak.expired());
  }
}

TEST_CASE("WeakIntrusivePtrTest: const", "[core][intrusive_ptr]") {
  SECTION("AllowsMoveConstructingToConst") {
    IntrusiveAndWeak<SomeClass> a = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<const SomeClass> b = std::move(a.weak);
    CHECK(b.lock() == a.ptr);
  }
  SECTION("AllowsCopyConstructingToConst") {
    IntrusiveAndWeak<SomeClass> a = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<const SomeClass> b = a.weak;
    CHECK(b.lock() == a.ptr);
  }
  SECTION("AllowsMoveAssigningToConst") {
    IntrusiveAndWeak<SomeClass> a = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<const SomeClass> b = make_weak_intrusive<const SomeClass>();
    b.weak = std::move(a.weak);
    CHECK(b.weak.lock() == a.ptr);
  }
  SECTION("AllowsCopyAssigningToConst") {
    IntrusiveAndWeak<SomeClass> a = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<const SomeClass> b = make_weak_intrusive<const SomeClass>();
    b.weak = a.weak;
    CHECK(b.weak.lock() == a.ptr);
  }
}

TEST_CASE("WeakIntrusivePtrTest: use_count and expired", "[core][intrusive_ptr]") {
  SECTION("givenNewPtr_then{HasUseCount1,IsNotExpired}") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    CHECK(obj.weak.use_count() == 1u);
    CHECK_FALSE(obj.weak.expired());
  }
  SECTION("givenInvalidPtr_then{HasUseCount0,IsExpired}") {
    weak_intrusive_ptr<SomeClass> obj = make_invalid_weak<SomeClass>();
    CHECK(obj.use_count() == 0u);
    CHECK(obj.expired());
  }
  SECTION("givenWeakOnlyPtr_then{HasUseCount0,IsExpired}") {
    weak_intrusive_ptr<SomeClass> obj = make_weak_only<SomeClass>();
    CHECK(obj.use_count() == 0u);
    CHECK(obj.expired());
  }
  SECTION("givenPtr_whenCallingWeakReset_then{HasUseCount0,IsExpired}") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    obj.weak.reset();
    CHECK(obj.weak.use_count() == 0u);
    CHECK(obj.weak.expired());
  }
  SECTION("givenPtr_whenCallingStrongReset_then{HasUseCount0,IsExpired}") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    obj.ptr.reset();
    CHECK(obj.weak.use_count() == 0u);
    CHECK(obj.weak.expired());
  }
  SECTION("givenMoveConstructedPtr_then{HasUseCount1,IsNotExpired,OldHasUseCount0,OldIsExpired}") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = std::move(obj.weak);
    CHECK(obj2.use_count() == 1u);
    CHECK_FALSE(obj2.expired());
    CHECK(obj.weak.use_count() == 0u);  // NOLINT(bugprone-use-after-move)
    CHECK(obj.weak.expired());
  }
  SECTION("givenMoveAssignedPtr_then{HasUseCount1,IsNotExpired,OldHasUseCount0,OldIsExpired}") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    IntrusiveAndWeak<SomeClass> obj2 = make_weak_intrusive<SomeClass>();
    obj2.weak = std::move(obj.weak);
    CHECK(obj2.weak.use_count() == 1u);
    CHECK_FALSE(obj2.weak.expired());
    CHECK(obj.weak.use_count() == 0u);  // NOLINT(bugprone-use-after-move)
    CHECK(obj.weak.expired());
  }
  SECTION(
      "givenCopyConstructedPtr_then{HasUseCount1,IsNotExpired,OldHasUseCount1,OldIsNotExpired}") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    weak_intrusive_ptr<SomeClass> obj2 = obj.weak;
    CHECK(obj2.use_count() == 1u);
    CHECK_FALSE(obj2.expired());
    CHECK(obj.weak.use_count() == 1u);
    CHECK_FALSE(obj.weak.expired());
  }
}

// ============================================================================================
// WeakIntrusivePtrTest: release_resources and destruction
// ============================================================================================

TEST_CASE("WeakIntrusivePtrTest: destruction", "[core][intrusive_ptr]") {
  bool resourcesReleased = false;
  bool wasDestructed = false;
  bool dummy = false;

  SECTION("givenPtr_whenLastStrongPointerResets_thenReleasesResources") {
    auto obj = make_weak_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    CHECK_FALSE(resourcesReleased);
    CHECK_FALSE(wasDestructed);
    obj.ptr.reset();
    CHECK(resourcesReleased);
    CHECK_FALSE(wasDestructed);
    obj.weak.reset();
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenDestructedButStillHasStrongPointers_thenDoesntReleaseResources") {
    auto obj = make_weak_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
    CHECK_FALSE(resourcesReleased);
    CHECK_FALSE(wasDestructed);
    obj.weak.reset();
    CHECK_FALSE(resourcesReleased);
    CHECK_FALSE(wasDestructed);
    obj.ptr.reset();
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenDestructed_thenDestructsObject") {
    {
      auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveConstructed_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveConstructedToBaseClass_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
    {
      weak_intrusive_ptr<DestructableMock> obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveAssigned_thenDestructsOldObject") {
    auto obj = make_weak_only<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenMoveAssignedToBaseClass_thenDestructsOldObject") {
    auto obj = make_weak_only<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithCopy_whenMoveAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_weak_only<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        auto copy = obj2;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = std::move(obj);
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithBaseClassCopy_whenMoveAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_weak_only<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy = obj2;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = std::move(obj);
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithCopy_whenMoveAssignedToBaseClass_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_weak_only<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy = obj2;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = std::move(obj);
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenMoveAssigned_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto obj2 = make_weak_only<DestructableMock>(&dummy, &dummy);
      obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenMoveAssignedToBaseClass_thenDestructsObjectAfterSecondDestructed") {
    auto obj = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto obj2 = make_weak_only<DestructableMock>(&dummy, &dummy);
      obj2 = std::move(obj);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenCopyConstructedAndDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy = obj;  // NOLINT
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyConstructedToBaseClassAndDestructed_"
      "thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyConstructedAndOriginalDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      weak_intrusive_ptr<DestructableMock> copy = obj;
      obj.reset();
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyConstructedToBaseClassAndOriginalDestructed_"
      "thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      weak_intrusive_ptr<DestructableMock> copy = obj;
      obj.reset();
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenCopyAssignedAndDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy =
            make_weak_only<DestructableMock>(&dummy, &dummy);
        copy = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyAssignedToBaseClassAndDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto obj = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy =
            make_weak_only<DestructableMock>(&dummy, &dummy);
        copy = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyAssignedAndOriginalDestructed_thenDestructsObjectAfterLastDestruction") {
    {
      auto copy = make_weak_only<DestructableMock>(&dummy, &dummy);
      {
        auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
        copy = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION(
      "givenPtr_whenCopyAssignedToBaseClassAndOriginalDestructed_"
      "thenDestructsObjectAfterLastDestruction") {
    {
      auto copy = make_weak_only<DestructableMock>(&dummy, &dummy);
      {
        auto obj = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
        copy = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtr_whenCopyAssigned_thenDestructsOldObject") {
    auto obj = make_weak_only<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = obj;
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenCopyAssignedToBaseClass_thenDestructsOldObject") {
    auto obj = make_weak_only<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj2 = obj;
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithCopy_whenCopyAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_weak_only<DestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        auto copy = obj2;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithBaseClassCopy_whenCopyAssigned_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_weak_only<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<ChildDestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy = obj2;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION(
      "givenPtrWithCopy_whenCopyAssignedToBaseClass_thenDestructsOldObjectAfterCopyIsDestructed") {
    auto obj = make_weak_only<ChildDestructableMock>(&dummy, &dummy);
    {
      auto obj2 = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
      {
        weak_intrusive_ptr<DestructableMock> copy = obj2;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        obj2 = obj;
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
      }
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtr_whenCallingReset_thenDestructs") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    CHECK(resourcesReleased);
    CHECK_FALSE(wasDestructed);
    obj.reset();
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenPtrWithCopy_whenCallingReset_thenDestructsAfterCopyDestructed") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto copy = obj;
      obj.reset();
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      copy.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithCopy_whenCallingResetOnCopy_thenDestructsAfterOriginalDestructed") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto copy = obj;
      copy.reset();
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      obj.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithMoved_whenCallingReset_thenDestructsAfterMovedDestructed") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto moved = std::move(obj);
      obj.reset();  // NOLINT(bugprone-use-after-move)
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      moved.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
  SECTION("givenPtrWithMoved_whenCallingResetOnMoved_thenDestructsImmediately") {
    auto obj = make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
    {
      auto moved = std::move(obj);
      moved.reset();
      CHECK(resourcesReleased);
      CHECK(wasDestructed);
    }
  }
}

// ============================================================================================
// WeakIntrusivePtrTest: release / reclaim
// ============================================================================================

TEST_CASE("WeakIntrusivePtrTest: release and reclaim", "[core][intrusive_ptr]") {
  bool resourcesReleased = false;
  bool wasDestructed = false;
  bool dummy = false;

  SECTION("givenPtr_whenReleasedAndReclaimed_thenDoesntCrash") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    SomeClass* ptr = obj.weak.release();
    weak_intrusive_ptr<SomeClass> reclaimed = weak_intrusive_ptr<SomeClass>::reclaim(ptr);
    CHECK(reclaimed.lock() == obj.ptr);
  }
  SECTION("givenWeakOnlyPtr_whenReleasedAndReclaimed_thenDoesntCrash") {
    weak_intrusive_ptr<SomeClass> obj = make_weak_only<SomeClass>();
    SomeClass* ptr = obj.release();
    weak_intrusive_ptr<SomeClass> reclaimed = weak_intrusive_ptr<SomeClass>::reclaim(ptr);
    CHECK(reclaimed.expired());
  }
  SECTION("givenPtr_whenReleasedAndReclaimed_thenIsDestructedAtEnd") {
    {
      IntrusiveAndWeak<DestructableMock> outer =
          make_weak_intrusive<DestructableMock>(&dummy, &dummy);
      {
        IntrusiveAndWeak<DestructableMock> inner =
            make_weak_intrusive<DestructableMock>(&resourcesReleased, &wasDestructed);
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        DestructableMock* ptr = inner.weak.release();
        CHECK_FALSE(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        outer.ptr = inner.ptr;
        outer.weak = weak_intrusive_ptr<DestructableMock>::reclaim(ptr);
      }
      // inner is destructed
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
      outer.weak.reset();
      CHECK_FALSE(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    // outer is destructed
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenWeakOnlyPtr_whenReleasedAndReclaimed_thenIsDestructedAtEnd") {
    {
      weak_intrusive_ptr<DestructableMock> outer = make_invalid_weak<DestructableMock>();
      {
        weak_intrusive_ptr<DestructableMock> inner =
            make_weak_only<DestructableMock>(&resourcesReleased, &wasDestructed);
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        DestructableMock* ptr = inner.release();
        CHECK(resourcesReleased);
        CHECK_FALSE(wasDestructed);
        outer = weak_intrusive_ptr<DestructableMock>::reclaim(ptr);
      }
      // inner is destructed
      CHECK(resourcesReleased);
      CHECK_FALSE(wasDestructed);
    }
    // outer is destructed
    CHECK(resourcesReleased);
    CHECK(wasDestructed);
  }
  SECTION("givenStackObject_whenReclaimed_thenCrashes") {
    // This would cause very weird bugs on destruction; better to fail early on creation.
    SomeClass obj;
    weak_intrusive_ptr<SomeClass> ptr = make_invalid_weak<SomeClass>();
#if TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
    CHECK_THROWS_AS(ptr = weak_intrusive_ptr<SomeClass>::reclaim(&obj), tensorplay::Error);
    CHECK(ptr.expired());
#else
    CHECK_NOTHROW(ptr = weak_intrusive_ptr<SomeClass>::reclaim(&obj));
    (void)ptr.release();  // give the bogus reference back before it touches the stack object
#endif
  }
  SECTION("givenObjectWithWeakReferenceToSelf_whenDestroyed_thenDoesNotCrash") {
    auto p = make_intrusive<WeakReferenceToSelf>();
    p->ptr = weak_intrusive_ptr<intrusive_ptr_target>(intrusive_ptr<intrusive_ptr_target>(p));
    CHECK(p.weak_use_count() == 2u);
  }
  SECTION("reclaim_copy adds a weak reference (beyond c10's tests)") {
    IntrusiveAndWeak<SomeClass> obj = make_weak_intrusive<SomeClass>();
    SomeClass* raw_weak = obj.weak.release();
    {
      auto copy = weak_intrusive_ptr<SomeClass>::reclaim_copy(raw_weak);
      CHECK(obj.ptr.weak_use_count() == 3u);
    }
    auto back = weak_intrusive_ptr<SomeClass>::reclaim(raw_weak);
    CHECK(obj.ptr.weak_use_count() == 2u);
  }
}

// ============================================================================================
// Beyond c10's suite
// ============================================================================================

namespace {
// Logs release_resources() and the destructor, in order.
class OrderMock : public intrusive_ptr_target {
 public:
  explicit OrderMock(std::vector<std::string>* log) : log_(log) {}
  ~OrderMock() override { log_->push_back("destroyed"); }
  void release_resources() override { log_->push_back("released"); }

 private:
  std::vector<std::string>* log_;
};
}  // namespace

TEST_CASE("intrusive_ptr: release_resources and destructor order", "[core][intrusive_ptr]") {
  std::vector<std::string> log;
  using V = std::vector<std::string>;

  SECTION("no weak references: destructor only, at the last strong release") {
    auto p = make_intrusive<OrderMock>(&log);
    auto q = p;
    p.reset();
    CHECK(log.empty());
    q.reset();
    CHECK(log == V{"destroyed"});
  }
  SECTION("weak references: release_resources at the last strong, destructor at the last weak") {
    auto p = make_intrusive<OrderMock>(&log);
    weak_intrusive_ptr<OrderMock> w1(p);
    weak_intrusive_ptr<OrderMock> w2 = w1;
    p.reset();
    CHECK(log == V{"released"});
    w1.reset();
    CHECK(log == V{"released"});
    w2.reset();
    CHECK(log == V{"released", "destroyed"});
  }
  SECTION("weak references dropped before the last strong one: destructor only") {
    auto p = make_intrusive<OrderMock>(&log);
    { weak_intrusive_ptr<OrderMock> w(p); }
    p.reset();
    CHECK(log == V{"destroyed"});
  }
  SECTION("a strong reference regained through lock() delays both") {
    auto p = make_intrusive<OrderMock>(&log);
    weak_intrusive_ptr<OrderMock> w(p);
    auto again = w.lock();
    p.reset();
    CHECK(log.empty());
    again.reset();
    CHECK(log == V{"released"});
    w.reset();
    CHECK(log == V{"released", "destroyed"});
  }
}

TEST_CASE("intrusive_ptr: packed counts", "[core][intrusive_ptr]") {
  STATIC_REQUIRE(sizeof(intrusive_ptr<SomeClass>) == sizeof(void*));
  STATIC_REQUIRE(sizeof(weak_intrusive_ptr<SomeClass>) == sizeof(void*));

  auto p = make_intrusive<SomeClass>();
  CHECK(p.use_count() == 1u);
  CHECK(p.weak_use_count() == 1u);  // the +1 carried by the strong references
  weak_intrusive_ptr<SomeClass> w(p);
  CHECK(w.use_count() == 1u);
  CHECK(w.weak_use_count() == 2u);
  auto q = w.lock();
  CHECK(p.use_count() == 2u);
  CHECK(p.weak_use_count() == 2u);  // strong copies do not touch the weak count
  q.reset();
  p.reset();
  CHECK(w.use_count() == 0u);
  CHECK(w.weak_use_count() == 1u);  // the +1 went with the last strong reference
  CHECK(make_invalid_weak<SomeClass>().weak_use_count() == 0u);
}

TEST_CASE("intrusive_ptr: raw:: reference counting", "[core][intrusive_ptr]") {
  namespace raw_strong = tensorplay::raw::intrusive_ptr;
  namespace raw_weak = tensorplay::raw::weak_intrusive_ptr;
  std::vector<std::string> log;
  using V = std::vector<std::string>;

  auto p = make_intrusive<OrderMock>(&log);
  OrderMock* raw = p.get();

  raw_strong::incref(raw);
  CHECK(raw_strong::use_count(raw) == 2u);
  raw_strong::decref(raw);
  CHECK(p.use_count() == 1u);

  OrderMock* weak_raw = raw_strong::make_weak(raw);
  CHECK(weak_raw == raw);
  CHECK(p.weak_use_count() == 2u);
  raw_weak::incref(weak_raw);
  CHECK(p.weak_use_count() == 3u);
  raw_weak::decref(weak_raw);
  CHECK(p.weak_use_count() == 2u);

  OrderMock* locked = raw_weak::lock(weak_raw);
  CHECK(locked == raw);
  CHECK(raw_weak::use_count(weak_raw) == 2u);
  raw_strong::decref(locked);

  p.reset();  // last strong reference: the raw weak one keeps the memory
  CHECK(log == V{"released"});
  CHECK(raw_weak::use_count(weak_raw) == 0u);
  CHECK(raw_weak::lock(weak_raw) == nullptr);
  raw_weak::decref(weak_raw);
  CHECK(log == V{"released", "destroyed"});
}

TEST_CASE("intrusive_ptr: assignment keeps the new target alive while releasing the old",
          "[core][intrusive_ptr]") {
  // p holds the only reference to a node whose member is the only other path to the child;
  // `p = p->next` must take the child before dropping the parent (copy-and-swap does).
  struct Node : intrusive_ptr_target {
    int value;
    intrusive_ptr<Node> next;
    explicit Node(int v) : value(v) {}
  };
  auto p = make_intrusive<Node>(1);
  p->next = make_intrusive<Node>(2);
  p = p->next;
  CHECK(p->value == 2);
  CHECK(p.use_count() == 1u);
}

// ============================================================================================
// Note [Unique release probe]: the opt-in release that skips the RMW for a sole owner must keep
// every semantic of the RMW path (destructor vs release_resources, weak expiry, counts).
// ============================================================================================

namespace {
class ProbingOrderMock final : public OrderMock {
 public:
  static constexpr bool intrusive_ptr_probe_unique_release = true;
  using OrderMock::OrderMock;
};

// Constant evaluation takes the probe's plain-arithmetic path, weak references included.
struct ProbingNode : intrusive_ptr_target {
  static constexpr bool intrusive_ptr_probe_unique_release = true;
  int* destroyed;
  int* released;
  constexpr ProbingNode(int* d, int* r) : destroyed(d), released(r) {}
  constexpr ~ProbingNode() override { ++*destroyed; }
  constexpr void release_resources() override { ++*released; }
};
constexpr int probing_sole_owner() {  // destroyed, never released
  int destroyed = 0, released = 0;
  {
    auto p = make_intrusive<ProbingNode>(&destroyed, &released);
    auto q = p;
    q.reset();
    if (destroyed != 0 || p.use_count() != 1u) return -1;
  }
  return destroyed * 10 + released;
}
constexpr int probing_with_weak() {  // released at the last strong, destroyed at the last weak
  int destroyed = 0, released = 0;
  weak_intrusive_ptr<ProbingNode> w;
  {
    auto p = make_intrusive<ProbingNode>(&destroyed, &released);
    w = p;
  }
  if (!w.expired() || w.weak_use_count() != 1u || destroyed != 0) return -1;
  w.reset();
  return destroyed * 10 + released;
}
static_assert(probing_sole_owner() == 10);
static_assert(probing_with_weak() == 11);

struct ProbingCounted final : intrusive_ptr_target {
  static constexpr bool intrusive_ptr_probe_unique_release = true;
  std::atomic<int>* destroyed;
  std::atomic<int>* released;
  int payload = 42;
  ProbingCounted(std::atomic<int>* d, std::atomic<int>* r) : destroyed(d), released(r) {}
  ~ProbingCounted() override { destroyed->fetch_add(1); }
  void release_resources() override { released->fetch_add(1); }
};
}  // namespace

static_assert(tensorplay::detail::probes_unique_release_v<ProbingOrderMock>);
static_assert(!tensorplay::detail::probes_unique_release_v<OrderMock>);
static_assert(!tensorplay::detail::probes_unique_release_v<intrusive_ptr_target>);

TEST_CASE("intrusive_ptr: the unique release probe keeps the RMW path's semantics",
          "[core][intrusive_ptr]") {
  std::vector<std::string> log;
  using V = std::vector<std::string>;

  SECTION("sole owner: destructor only") {
    auto p = make_intrusive<ProbingOrderMock>(&log);
    p.reset();
    CHECK(log == V{"destroyed"});
  }
  SECTION("shared: the probe fails, the count drops, the last owner destroys") {
    auto p = make_intrusive<ProbingOrderMock>(&log);
    auto q = p;
    CHECK(p.use_count() == 2u);
    q.reset();
    CHECK(log.empty());
    CHECK(p.use_count() == 1u);
    CHECK(p.weak_use_count() == 1u);
    p.reset();
    CHECK(log == V{"destroyed"});
  }
  SECTION("const target") {
    intrusive_ptr<const ProbingOrderMock> p = make_intrusive<ProbingOrderMock>(&log);
    auto q = p;
    q.reset();
    CHECK(log.empty());
    p.reset();
    CHECK(log == V{"destroyed"});
  }
  SECTION("a live weak reference: release_resources at the last strong, delete at the last weak") {
    auto p = make_intrusive<ProbingOrderMock>(&log);
    weak_intrusive_ptr<ProbingOrderMock> w(p);
    p.reset();
    CHECK(log == V{"released"});
    CHECK(w.expired());
    CHECK(w.use_count() == 0u);
    CHECK(w.weak_use_count() == 1u);
    CHECK_FALSE(w.lock());
    w.reset();
    CHECK(log == V{"released", "destroyed"});
  }
  SECTION("a weak reference gone before the last strong: the probe deletes at once") {
    auto p = make_intrusive<ProbingOrderMock>(&log);
    {
      weak_intrusive_ptr<ProbingOrderMock> w(p);
      CHECK(p.weak_use_count() == 2u);
    }
    CHECK(p.weak_use_count() == 1u);
    p.reset();
    CHECK(log == V{"destroyed"});
  }
  SECTION("a strong reference from lock() can be the last one") {
    auto p = make_intrusive<ProbingOrderMock>(&log);
    weak_intrusive_ptr<ProbingOrderMock> w(p);
    auto locked = w.lock();
    p.reset();
    CHECK(log.empty());
    CHECK(locked.use_count() == 1u);
    locked.reset();  // weak reference alive: the RMW path, which releases
    CHECK(log == V{"released"});
    w.reset();
    CHECK(log == V{"released", "destroyed"});
  }
  SECTION("reclaim and release round-trip through raw pointers") {
    auto p = make_intrusive<ProbingOrderMock>(&log);
    ProbingOrderMock* raw = p.release();
    auto back = intrusive_ptr<ProbingOrderMock>::reclaim(raw);
    CHECK(back.use_count() == 1u);
    back.reset();
    CHECK(log == V{"destroyed"});
  }
}

TEST_CASE("intrusive_ptr: counts near the layout's boundaries", "[core][intrusive_ptr]") {
  // The strong count is stored minus one in the high half (see kStrongOne): walking through
  // strong 1 -> 0 with weak references of various counts, and large counts, must read back
  // exactly.
  auto p = make_intrusive<SomeClass>();
  std::vector<weak_intrusive_ptr<SomeClass>> weaks(1000, weak_intrusive_ptr<SomeClass>(p));
  std::vector<intrusive_ptr<SomeClass>> strongs(1000, p);
  CHECK(p.use_count() == 1001u);
  CHECK(p.weak_use_count() == 1001u);
  strongs.clear();
  CHECK(p.use_count() == 1u);
  CHECK(p.unique());
  p.reset();
  CHECK(weaks[0].expired());
  CHECK(weaks[0].use_count() == 0u);
  CHECK(weaks[0].weak_use_count() == 1000u);
  CHECK_FALSE(weaks[999].lock());
  weaks.resize(1);
  CHECK(weaks[0].weak_use_count() == 1u);
}

TEST_CASE("intrusive_ptr: concurrent copies and last releases of a probing type",
          "[core][intrusive_ptr]") {
  // A small multi-threaded check of the probe (tests/stress has the long ones); meant to run
  // under TSan too. Each round, every thread drops its strong reference while some also hold a
  // weak one: exactly one destruction per object, release_resources at most once.
  std::atomic<int> destroyed{0}, released{0}, errors{0};
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  for (int round = 0; round < kRounds; ++round) {
    auto obj = make_intrusive<ProbingCounted>(&destroyed, &released);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([mine = obj, t, round, &errors]() mutable {
        weak_intrusive_ptr<ProbingCounted> weak(mine);
        for (int i = 0; i < 4; ++i) {
          auto copy = mine;
          if (copy->payload != 42) errors.fetch_add(1);
        }
        if ((t + round) % 2 == 0) weak.reset();
        mine.reset();
        if (auto again = weak.lock(); again && again->payload != 42) errors.fetch_add(1);
      });
    }
    obj.reset();
    for (auto& th : threads) th.join();
  }
  CHECK(errors == 0);
  CHECK(destroyed == kRounds);
  CHECK(released <= kRounds);
}

}  // namespace core_intrusive_ptr_test
