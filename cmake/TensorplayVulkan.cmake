# tensorplay::vulkan, the opt-in Vulkan backend (included by the top-level CMakeLists.txt when
# TENSORPLAY_USE_VULKAN is ON).
#
# An INTERFACE target over tensorplay::tensorplay that adds the Vulkan headers (Vulkan::Headers,
# from Vulkan-Headers' own package or CMake's FindVulkan), the dl library and
# TENSORPLAY_USE_VULKAN=1. It does not link libvulkan: the backend opens libvulkan.so.1 at run
# time (include/tensorplay/backends/vulkan/loader.hpp), so programs start on machines without
# Vulkan. The SPIR-V of the shaders is committed as headers
# (include/tensorplay/backends/vulkan/shaders/*.spv.hpp); the tensorplay_vulkan_shaders target
# regenerates them from the GLSL sources beside them (shaders/*.comp) with glslc, needed only
# by whoever edits a shader.
include_guard(GLOBAL)

if(NOT TARGET Vulkan::Headers)
  find_package(VulkanHeaders CONFIG QUIET)
endif()
if(NOT TARGET Vulkan::Headers)
  find_package(Vulkan QUIET)  # CMake >= 3.21 defines Vulkan::Headers
endif()
if(NOT TARGET Vulkan::Headers)
  message(FATAL_ERROR "TENSORPLAY_USE_VULKAN needs the Vulkan headers "
                      "(Debian: apt-get install libvulkan-dev)")
endif()

add_library(tensorplay_vulkan INTERFACE)
add_library(tensorplay::vulkan ALIAS tensorplay_vulkan)
set_target_properties(tensorplay_vulkan PROPERTIES EXPORT_NAME vulkan)
target_link_libraries(tensorplay_vulkan INTERFACE tensorplay Vulkan::Headers ${CMAKE_DL_LIBS})
# The feature macro travels with the target, so every translation unit agrees on it (and on
# the allocator table that core/device_policy.hpp builds from it).
target_compile_definitions(tensorplay_vulkan INTERFACE TENSORPLAY_USE_VULKAN=1)

find_program(TENSORPLAY_GLSLC glslc DOC "glslc (shaderc), to regenerate the Vulkan shader headers")
set(TENSORPLAY_VULKAN_SHADER_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/TensorplayVulkanShaders.cmake")
if(TENSORPLAY_GLSLC)
  add_custom_target(tensorplay_vulkan_shaders
    COMMAND "${CMAKE_COMMAND}" "-DGLSLC=${TENSORPLAY_GLSLC}"
            "-DSHADER_DIR=${PROJECT_SOURCE_DIR}/include/tensorplay/backends/vulkan/shaders"
            "-DOUT_DIR=${PROJECT_SOURCE_DIR}/include/tensorplay/backends/vulkan/shaders"
            -P "${TENSORPLAY_VULKAN_SHADER_SCRIPT}"
    COMMENT "Regenerating include/tensorplay/backends/vulkan/shaders/*.spv.hpp with glslc"
    VERBATIM)
endif()
