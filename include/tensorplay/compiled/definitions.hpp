// Included first by every header that defines templates compiled/declarations.hpp declares. In
// separately compiled mode the umbrella header declares those templates, with their default
// arguments, in place of the defining headers, and a defining header read after that would give
// each default again (an error in C++). Such a file includes the headers it needs before the
// umbrella header (which then parses the definitions too), or defines TENSORPLAY_FULL_HEADERS=1.
#pragma once

#ifdef TENSORPLAY_DECLARATIONS_ONLY_
#error "TensorPlay: in separately compiled mode (TENSORPLAY_SEPARATE_COMPILATION) <tensorplay/tensorplay.hpp> declares the ops only; include the ops or autograd header you need before it, or define TENSORPLAY_FULL_HEADERS=1"
#endif
#define TENSORPLAY_DEFINITIONS_INCLUDED_ 1
