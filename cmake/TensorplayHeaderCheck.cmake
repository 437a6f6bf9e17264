# tensorplay_header_check(<target> <header>...): an object library with one translation unit per
# header (relative to include/), each including its header twice - so every header compiles on
# its own and is include-guarded. Link the target with whatever the headers need.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/TensorplayWarnings.cmake")
function(tensorplay_header_check target)
  set(tus)
  foreach(header IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "${header}" tu_name)
    set(tu "${CMAKE_CURRENT_BINARY_DIR}/header_check/${tu_name}.cpp")
    file(CONFIGURE OUTPUT "${tu}" CONTENT "#include <${header}>\n#include <${header}>  // guarded\n")
    list(APPEND tus "${tu}")
  endforeach()
  add_library(${target} OBJECT ${tus})
  target_link_libraries(${target} PRIVATE tensorplay::tensorplay)
  tensorplay_strict_warnings(${target})
endfunction()
