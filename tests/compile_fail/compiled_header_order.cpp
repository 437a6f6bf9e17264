// Separately compiled mode: after <tensorplay/tensorplay.hpp> has declared the ops (and only
// declared them), including a header that defines them is refused with a message that says what
// to do instead; including it first is fine (the umbrella header then parses every definition).
#define TENSORPLAY_SEPARATE_COMPILATION 1
#ifndef TP_SHOULD_FAIL
#include <tensorplay/ops/binary.hpp>
#endif
#include <tensorplay/tensorplay.hpp>
#ifdef TP_SHOULD_FAIL
#include <tensorplay/ops/binary.hpp>
#endif

// What tensorplay::compiled defines (compiled/extern_templates.hpp's configuration check).
extern "C" const int tensorplay_compiled_library_was_built_without_vulkan = 1;
extern "C" const int tensorplay_compiled_library_was_built_without_cuda = 1;

int main() { return 0; }
