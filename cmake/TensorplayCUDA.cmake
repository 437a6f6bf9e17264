# tensorplay::cuda, the opt-in CUDA backend (included by the top-level CMakeLists.txt when
# TENSORPLAY_USE_CUDA is ON, or AUTO and the toolkit is found).
#
# An INTERFACE target over tensorplay::tensorplay that adds the CUDA runtime, NVRTC and cuBLAS
# from find_package(CUDAToolkit) and TENSORPLAY_USE_CUDA=1. Consumers compile with g++ or
# clang++: nothing needs nvcc (kernels are compiled at run time with NVRTC). The driver library
# (libcuda.so.1, present only where a driver is installed) is never linked: the runtime opens it
# itself, so a program built with the target starts, and does its CPU work, on a machine without
# a driver or a GPU; tensorplay::cuda::is_available() is false there.
if(NOT TARGET CUDA::cudart)
  find_package(CUDAToolkit REQUIRED)
endif()

add_library(tensorplay_cuda INTERFACE)
add_library(tensorplay::cuda ALIAS tensorplay_cuda)
set_target_properties(tensorplay_cuda PROPERTIES EXPORT_NAME cuda)
# NVRTC by its library file: CMake's CUDA::nvrtc target also links the driver's link stub
# (stubs/libcuda.so), which would make every program need libcuda.so.1 at start-up, and NVRTC
# itself does not need the driver.
target_link_libraries(tensorplay_cuda INTERFACE tensorplay CUDA::cudart CUDA::cublas
                      "$<TARGET_FILE:CUDA::nvrtc>")
# The feature macro travels with the target, so every translation unit agrees on it (and on
# the allocator table that core/device_policy.hpp builds from it).
target_compile_definitions(tensorplay_cuda INTERFACE TENSORPLAY_USE_CUDA=1)
