# Compiles the Vulkan shaders (include/tensorplay/backends/vulkan/shaders/*.comp) to SPIR-V with
# glslc and writes each as a C++ header
# (<name>.spv.hpp holding `inline constexpr std::uint32_t <name>_spv[]`), so consumers of
# tensorplay::vulkan never need glslc. Script mode:
#   cmake -DGLSLC=<glslc> -DSHADER_DIR=<shaders/> -DOUT_DIR=<dir> [-DCHECK_DIR=<dir>] -P <this>
# With CHECK_DIR the headers are generated into OUT_DIR (a scratch directory) and compared with
# those in CHECK_DIR (the committed ones): any difference, missing or extra header fails.
cmake_minimum_required(VERSION 3.25)
foreach(var GLSLC SHADER_DIR OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TensorplayVulkanShaders.cmake: -D${var}=... is required")
  endif()
endforeach()
# Relative paths are taken from the working directory.
foreach(var SHADER_DIR OUT_DIR CHECK_DIR)
  if(DEFINED ${var})
    get_filename_component(${var} "${${var}}" ABSOLUTE BASE_DIR "$ENV{PWD}")
  endif()
endforeach()
set(flags --target-env=vulkan1.1 -O -mfmt=num)
file(GLOB shaders RELATIVE "${SHADER_DIR}" "${SHADER_DIR}/*.comp")
list(SORT shaders)
if(NOT shaders)
  message(FATAL_ERROR "no shaders (*.comp) found in ${SHADER_DIR}")
endif()
file(MAKE_DIRECTORY "${OUT_DIR}")
set(generated)
foreach(shader IN LISTS shaders)
  get_filename_component(name "${shader}" NAME_WE)
  set(words "${OUT_DIR}/${name}.spv.num")
  execute_process(COMMAND "${GLSLC}" ${flags} -o "${words}" "${SHADER_DIR}/${shader}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "glslc failed on ${shader}:\n${err}")
  endif()
  file(READ "${words}" spirv)
  file(REMOVE "${words}")
  string(STRIP "${spirv}" spirv)
  string(JOIN " " shown_flags ${flags})
  file(WRITE "${OUT_DIR}/${name}.spv.hpp"
"// Generated from ${shader} (beside this file) by cmake/TensorplayVulkanShaders.cmake
// (glslc ${shown_flags}). Do not edit: change the shader and build the
// tensorplay_vulkan_shaders target; CTest vulkan_shaders_up_to_date checks this file.
#pragma once

#include <cstdint>

namespace tensorplay::vulkan::shaders {

inline constexpr std::uint32_t ${name}_spv[] = {
${spirv}
};

}  // namespace tensorplay::vulkan::shaders
")
  list(APPEND generated "${name}.spv.hpp")
endforeach()

if(DEFINED CHECK_DIR)
  set(stale)
  foreach(header IN LISTS generated)
    if(NOT EXISTS "${CHECK_DIR}/${header}")
      list(APPEND stale "${header} (missing)")
    else()
      execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files
                              "${OUT_DIR}/${header}" "${CHECK_DIR}/${header}"
                      RESULT_VARIABLE differs)
      if(differs)
        list(APPEND stale "${header} (differs)")
      endif()
    endif()
  endforeach()
  file(GLOB committed RELATIVE "${CHECK_DIR}" "${CHECK_DIR}/*.spv.hpp")
  foreach(header IN LISTS committed)
    if(NOT header IN_LIST generated)
      list(APPEND stale "${header} (no shader for it)")
    endif()
  endforeach()
  if(stale)
    execute_process(COMMAND "${GLSLC}" --version OUTPUT_VARIABLE version)
    message(FATAL_ERROR "generated shader headers are out of date: ${stale}\n"
            "Rebuild them with: cmake --build <build> --target tensorplay_vulkan_shaders\n"
            "(a different glslc release also changes the SPIR-V; this one is: ${version})")
  endif()
  message(STATUS "shader headers up to date: ${generated}")
endif()
