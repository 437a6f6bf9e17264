// Benchmark entry point. Cases are named `<case>@<impl>` (impl: tensorplay, libtorch, malloc,
// shared_ptr...) so bench/compare.py can put each case's implementations side by side.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
