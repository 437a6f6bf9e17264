# Warnings as errors for TensorPlay's own targets (never imposed on consumers).
function(tensorplay_strict_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
  # g++ 12's -Wmaybe-uninitialized misfires inside libstdc++'s <regex> and <functional> when
  # sanitizers instrument them (seen through Catch2's matchers); real bugs there are what
  # the sanitizer itself reports at run time.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_FLAGS MATCHES "-fsanitize")
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
endfunction()
