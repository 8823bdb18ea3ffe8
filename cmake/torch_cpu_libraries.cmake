# The torch that the extension builds against, as the Torch::Torch target: its
# headers and its CPU libraries (c10, torch_cpu, torch, torch_python).
#
# torch's own CMake package (find_package(Torch)) insists on finding the CUDA
# toolkit when torch is a CUDA build (the PyPI default for torch >= 2.11 on Linux),
# though torchtpu uses none of it. The extension is a CPU-side library of torch, so
# this imports those libraries directly, as torch.utils.cpp_extension does, in the
# same way for CPU and CUDA builds of torch. Expects Python_EXECUTABLE.
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env TORCH_DEVICE_BACKEND_AUTOLOAD=0
          "${Python_EXECUTABLE}" -c
          "import os, torch; print(os.path.dirname(torch.__file__)); print(int(torch._C._GLIBCXX_USE_CXX11_ABI)); print(torch.__version__)"
  OUTPUT_VARIABLE _torch_info OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _torch_result)
if(NOT _torch_result EQUAL 0)
  message(FATAL_ERROR "torch does not import with ${Python_EXECUTABLE}: install a supported torch")
endif()
string(REPLACE "\n" ";" _torch_info "${_torch_info}")
list(GET _torch_info 0 TORCH_ROOT)
list(GET _torch_info 1 _torch_cxx11_abi)
list(GET _torch_info 2 TORCH_PY_VERSION)
message(STATUS "torch ${TORCH_PY_VERSION}: ${TORCH_ROOT}")

add_library(Torch::Torch INTERFACE IMPORTED)
target_include_directories(Torch::Torch SYSTEM INTERFACE
  "${TORCH_ROOT}/include" "${TORCH_ROOT}/include/torch/csrc/api/include")
target_compile_definitions(Torch::Torch INTERFACE _GLIBCXX_USE_CXX11_ABI=${_torch_cxx11_abi})
foreach(_lib c10 torch_cpu torch torch_python)
  find_library(TORCH_${_lib}_LIBRARY ${_lib} PATHS "${TORCH_ROOT}/lib" NO_DEFAULT_PATH REQUIRED)
  target_link_libraries(Torch::Torch INTERFACE "${TORCH_${_lib}_LIBRARY}")
endforeach()
