// Errors: one exception hierarchy and one macro family that throws it.
//
// Error derives from std::exception; IndexError, ValueError, TypeError and NotImplementedError
// derive from Error, and the Python binding maps each to the Python exception of the same name
// (everything else becomes RuntimeError). OutOfMemoryError: a device allocation failed even after
// the caching allocator emptied its cache and retried (torch.cuda.OutOfMemoryError); its messages
// have PyTorch's CUDA shape ("Tried to allocate X MiB (...)"). Messages follow PyTorch's wording
// where it has one.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <utility>

namespace tensorplay {

class Error : public std::exception {
 public:
  explicit Error(std::string msg) : msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& msg() const noexcept { return msg_; }

 private:
  std::string msg_;
};

class IndexError : public Error {
 public:
  using Error::Error;
};
class ValueError : public Error {
 public:
  using Error::Error;
};
class TypeError : public Error {
 public:
  using Error::Error;
};
class NotImplementedError : public Error {
 public:
  using Error::Error;
};
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

namespace detail {

// Builds an error message from its parts with operator<<. The stream work lives in
// non-template, out-of-line members shared by every message; what each distinct check
// instantiates is only the fold of calls below (string literals of every length decay to the
// one `const char*` overload). Errors are formatted in every header, so this is compile time.
class MessageBuilder {
 public:
  __attribute__((noinline)) MessageBuilder() = default;
  __attribute__((noinline)) ~MessageBuilder() = default;
  __attribute__((noinline)) MessageBuilder& operator<<(const char* s) {
    os_ << s;
    return *this;
  }
  __attribute__((noinline)) MessageBuilder& operator<<(const std::string& s) {
    os_ << s;
    return *this;
  }
  __attribute__((noinline)) MessageBuilder& operator<<(long long v) {
    os_ << v;
    return *this;
  }
  MessageBuilder& operator<<(int v) { return *this << static_cast<long long>(v); }
  MessageBuilder& operator<<(long v) { return *this << static_cast<long long>(v); }
  template <class T>
  MessageBuilder& operator<<(const T& v) {
    os_ << v;
    return *this;
  }
  __attribute__((noinline)) std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
};

template <class... Args>
std::string str_cat(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return {};
  } else {
    MessageBuilder m;
    (m << ... << args);
    return m.str();
  }
}

template <class E, class... Args>
[[noreturn]] __attribute__((noinline, cold)) void throw_error(const Args&... args) {
  throw E(str_cat(args...));
}

}  // namespace detail
}  // namespace tensorplay

#define TP_CHECK_IMPL_(ErrorType, cond, ...)                     \
  do {                                                           \
    if (__builtin_expect(!(cond), 0)) {                          \
      ::tensorplay::detail::throw_error<ErrorType>(__VA_ARGS__); \
    }                                                            \
  } while (false)

// TP_CHECK(cond, "message ", parts...): throws tensorplay::Error when cond is false.
#define TP_CHECK(cond, ...) TP_CHECK_IMPL_(::tensorplay::Error, cond, __VA_ARGS__)
#define TP_CHECK_INDEX(cond, ...) TP_CHECK_IMPL_(::tensorplay::IndexError, cond, __VA_ARGS__)
#define TP_CHECK_VALUE(cond, ...) TP_CHECK_IMPL_(::tensorplay::ValueError, cond, __VA_ARGS__)
#define TP_CHECK_TYPE(cond, ...) TP_CHECK_IMPL_(::tensorplay::TypeError, cond, __VA_ARGS__)
#define TP_CHECK_NOT_IMPLEMENTED(cond, ...) \
  TP_CHECK_IMPL_(::tensorplay::NotImplementedError, cond, __VA_ARGS__)
// Unconditional throw, for code paths that are reached only on bad input.
#define TP_ERROR(...) ::tensorplay::detail::throw_error<::tensorplay::Error>(__VA_ARGS__)
