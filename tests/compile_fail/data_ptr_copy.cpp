// DataPtr owns its block: copying it would release the block twice, so it must not compile.
#include <tensorplay/core/data_ptr.hpp>

#include <utility>

int main() {
  tensorplay::DataPtr a;
#ifdef TP_SHOULD_FAIL
  tensorplay::DataPtr b(a);
#else
  tensorplay::DataPtr b(std::move(a));
#endif
  return b ? 1 : 0;
}
