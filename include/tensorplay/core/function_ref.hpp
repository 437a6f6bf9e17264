// FunctionRef<R(Args...)>: a non-owning reference to any callable (c10::function_ref). Two
// words, no allocation. The iteration engine takes its inner loops this way, so the loop
// driver (dimension odometer, tiling, thread split) is compiled once, not once per kernel.
// The callable must outlive the reference: pass temporaries only as function arguments.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace tensorplay {

template <class Fn>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, Args...>) FunctionRef(F&& f)
  noexcept  // NOLINT: implicit, like a function pointer
      : callable_(reinterpret_cast<std::intptr_t>(&f)),
        callback_([](std::intptr_t c, Args... args) -> R {
          return (*reinterpret_cast<std::remove_reference_t<F>*>(c))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return callback_(callable_, std::forward<Args>(args)...); }

 private:
  std::intptr_t callable_;
  R (*callback_)(std::intptr_t, Args...);
};

}  // namespace tensorplay
