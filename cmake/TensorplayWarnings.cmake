# Warnings as errors for TensorPlay's own targets (never imposed on consumers).
function(tensorplay_strict_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
  # g++ 12's -Wmaybe-uninitialized misfires inside libstdc++'s <regex> and <functional> when
  # sanitizers instrument them (seen through Catch2's matchers); real bugs there are what
  # the sanitizer itself reports at run time.
  # g++ 12 at -O3 reports a false -Wrestrict inside std::string's inlined memcpy for
  # `"literal" + std::string&&` (GCC PR 105329); the tests build strings that way.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_FLAGS MATCHES "-fsanitize")
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
endfunction()
