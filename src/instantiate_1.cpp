// tensorplay::compiled, part 2 of 4: explicit instantiations of the templates that
// instantiations.inc assigns to group 1 (see include/tensorplay/compiled/extern_templates.hpp).
// The four parts build in parallel; each owns a fixed share of the list.
#include <tensorplay/tensorplay.hpp>

#define TENSORPLAY_INSTANTIATE(group, ns, ...) \
  TENSORPLAY_INSTANTIATE_IN_##group(namespace ns { template __VA_ARGS__; })
#define TENSORPLAY_INSTANTIATE_IN_1(...) __VA_ARGS__
#define TENSORPLAY_INSTANTIATE_IN_2(...)
#define TENSORPLAY_INSTANTIATE_IN_3(...)
#define TENSORPLAY_INSTANTIATE_IN_0(...)
#define TENSORPLAY_INSTANTIATE_INTERNAL TENSORPLAY_INSTANTIATE
#include <tensorplay/compiled/instantiations.inc>
