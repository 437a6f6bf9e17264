// Built by tests/vulkan/CMakeLists.txt against tensorplay::compiled (which, with the Vulkan
// backend on, carries it) but with TENSORPLAY_USE_VULKAN undefined: its device table would differ
// from the library's, so it must not link (compiled/extern_templates.hpp's configuration check).
#include <tensorplay/tensorplay.hpp>

static_assert(!TENSORPLAY_USE_VULKAN && TENSORPLAY_SEPARATE_COMPILATION);

int main() { return tensorplay::ones({2}).sum().item<float>() == 2.0f ? 0 : 1; }
