// A tiny consumer of the library, built by the packaging tests both through
// find_package(tensorplay) against an installed tree and through add_subdirectory.
#include <tensorplay/tensorplay.hpp>

#include <iostream>

int main() {
  auto t = tensorplay::empty({2, 3});
  if (t.numel() != 6 || t.dim() != 2) return 1;
  std::cout << "consumer ok: tensorplay " << TENSORPLAY_VERSION_MAJOR << "."
            << TENSORPLAY_VERSION_MINOR << "." << TENSORPLAY_VERSION_PATCH << "\n";
  return 0;
}
