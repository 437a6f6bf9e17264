// A tiny consumer of the library, built by the packaging tests both through
// find_package(tensorplay) against an installed tree and through add_subdirectory.
#include <tensorplay/tensorplay.hpp>

#include <iostream>

int main() {
  auto t = tensorplay::empty({2, 3});
  if (t.numel() != 6 || t.dim() != 2) return 1;
  // An op, a reduction and autograd: in separately compiled mode these come from the library.
  auto x = tensorplay::ones({2, 3}).requires_grad_();
  (x * 2).sum().backward();
  if (x.grad().sum().item<float>() != 12.0f) return 2;
  std::cout << "consumer ok (" << (TENSORPLAY_SEPARATE_COMPILATION ? "compiled" : "header-only")
            << "): tensorplay " << TENSORPLAY_VERSION_MAJOR << "."
            << TENSORPLAY_VERSION_MINOR << "." << TENSORPLAY_VERSION_PATCH << "\n";
  return 0;
}
