// The separately compiled library is built without the Vulkan backend, so a translation unit
// that sees both TENSORPLAY_SEPARATE_COMPILATION and TENSORPLAY_USE_VULKAN must not compile
// (its allocator table and device checks would differ from the library's). Built twice by
// tests/vulkan/CMakeLists.txt: as written it compiles; with TP_SHOULD_FAIL it must not.
#ifdef TP_SHOULD_FAIL
#define TENSORPLAY_SEPARATE_COMPILATION 1
#endif
#include <tensorplay/tensorplay.hpp>

int main() { return tensorplay::ones({2}).sum().item<float>() == 2.0f ? 0 : 1; }
