# The torch backend's collectives run through LibTorch's c10d process groups from C++:
# ProcessGroupGloo for host memory, ProcessGroupNCCL for CUDA memory. Whether the LibTorch that
# find_package(Torch) found has them is probed here by building the backend's own code for each
# (backends/torch/collectives/<transport>_group.cpp, with a main that also makes the store calls
# the rest of collectives/ makes): what passes the probe compiles in the backend. Debian's
# libtorch-dev has Gloo (with libgloo-dev's headers) and no CUDA; pip's torch with CUDA has both.
# Sets OPCERT_WITH_TORCH_GLOO_ENABLED, OPCERT_WITH_TORCH_NCCL_ENABLED, OPCERT_TORCH_HAS_C10D (either
# one: collectives/ is built) and, for the backend, OPCERT_TORCH_C10D_DEFINITIONS,
# OPCERT_TORCH_C10D_INCLUDE_DIRS and OPCERT_TORCH_C10D_LIBRARIES. Included by backends/torch.
set(OPCERT_WITH_TORCH_GLOO AUTO CACHE STRING "torch backend collectives on host memory through c10d ProcessGroupGloo (AUTO, ON, OFF)")
set(OPCERT_WITH_TORCH_NCCL AUTO CACHE STRING "torch backend collectives on CUDA memory through c10d ProcessGroupNCCL (AUTO, ON, OFF)")
set_property(CACHE OPCERT_WITH_TORCH_GLOO PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE OPCERT_WITH_TORCH_NCCL PROPERTY STRINGS AUTO ON OFF)

set(OPCERT_TORCH_C10D_DEFINITIONS "")
set(OPCERT_TORCH_C10D_INCLUDE_DIRS "")
set(OPCERT_TORCH_C10D_LIBRARIES "")

set(_opcert_torch_dir ${PROJECT_SOURCE_DIR}/backends/torch)

# Compiles the backend's <transport>_group.cpp (and process_group.cpp) with a main that makes a
# group of one rank in a TCP store, with LibTorch's headers and the extra definitions and include
# folders; the result (TRUE/FALSE) lands in `result`, cached so that reconfiguring is quick.
# One translation unit that includes both files: LibTorch's headers parsed once, not three times
# (about 20 s of CPU each: a third of a configure's).
# Compiled, not linked: LibTorch's imported targets name others (pip torch's torch_cpu names
# protobuf::libprotobuf) that a try_compile project lacks, which fails the whole configure.
# Whether the API is there is the question; the backend's own link answers the rest.
# A failure leaves its log in ${CMAKE_BINARY_DIR}/opcert_probes/<result>.log.
function(_opcert_probe_c10d result transport definitions include_dirs)
  if(DEFINED ${result})
    return()
  endif()
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  set(_dir ${CMAKE_BINARY_DIR}/opcert_probes)
  file(WRITE ${_dir}/${result}.cpp "
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include \"${_opcert_torch_dir}/collectives/${transport}_group.cpp\"
#include \"${_opcert_torch_dir}/collectives/process_group.cpp\"
int main() {
  c10d::TCPStoreOptions o;
  o.port = 0;
  o.isServer = true;
  o.waitWorkers = false;
  o.timeout = std::chrono::milliseconds(1000);
  auto tcp = c10::make_intrusive<c10d::TCPStore>(\"127.0.0.1\", o);
  tcp->setTimeout(std::chrono::milliseconds(1000));
  c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::PrefixStore>(std::to_string(tcp->getPort()), tcp);
  auto group = opcert::torch_backend::make_${transport}_group(store, 0, 1, std::chrono::milliseconds(1000));
  const at::Tensor one = at::ones({1}, at::kInt);
  opcert::sdk::CollectiveArgs a;
  a.count = 1;
  auto launched = group->launch(a, one, one);
  return launched.work->isCompleted() && !launched.work->exception() ? 0 : 1;
}
")
  separate_arguments(_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  try_compile(_ok ${_dir}/${result}
    SOURCES ${_dir}/${result}.cpp
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${TORCH_INCLUDE_DIRS};${include_dirs};${_opcert_torch_dir};${PROJECT_SOURCE_DIR}/backends/sdk/include"
    COMPILE_DEFINITIONS ${_torch_flags} ${definitions}
    CXX_STANDARD 20
    OUTPUT_VARIABLE _log)
  if(NOT _ok)
    file(WRITE ${_dir}/${result}.log "${_log}")
  endif()
  set(${result} ${_ok} CACHE INTERNAL "opcert: whether the c10d probe ${result} built")
endfunction()

if(NOT OPCERT_WITH_TORCH_GLOO STREQUAL "OFF")
  # Debian's ProcessGroupGloo.hpp includes libgloo-dev's headers; pip's torch ships its own.
  find_path(OPCERT_GLOO_INCLUDE_DIR gloo/algorithm.h HINTS ${TORCH_INCLUDE_DIRS})
  find_library(OPCERT_GLOO_LIBRARY gloo)
  set(_gloo_includes "")
  if(OPCERT_GLOO_INCLUDE_DIR)
    set(_gloo_includes ${OPCERT_GLOO_INCLUDE_DIR})
  endif()
  set(_gloo_libraries "")
  if(OPCERT_GLOO_LIBRARY)
    set(_gloo_libraries ${OPCERT_GLOO_LIBRARY})
  endif()
  _opcert_probe_c10d(OPCERT_TORCH_HAS_GLOO gloo "-DUSE_C10D_GLOO;-DOPCERT_TORCH_HAS_GLOO=1" "${_gloo_includes}")
endif()
opcert_resolve_option(OPCERT_WITH_TORCH_GLOO OPCERT_TORCH_HAS_GLOO
  "c10d ProcessGroupGloo in LibTorch (with Debian's libtorch-dev: libgloo-dev); ${CMAKE_BINARY_DIR}/opcert_probes/OPCERT_TORCH_HAS_GLOO.log says why")
if(OPCERT_WITH_TORCH_GLOO_ENABLED)
  list(APPEND OPCERT_TORCH_C10D_DEFINITIONS USE_C10D_GLOO OPCERT_TORCH_HAS_GLOO=1)
  list(APPEND OPCERT_TORCH_C10D_INCLUDE_DIRS ${_gloo_includes})
  list(APPEND OPCERT_TORCH_C10D_LIBRARIES ${_gloo_libraries})
endif()

if(NOT OPCERT_WITH_TORCH_NCCL STREQUAL "OFF")
  # nccl.h: in the CUDA toolkit, or (pip's torch) in the nvidia-nccl package beside torch.
  find_package(CUDAToolkit QUIET)
  find_path(OPCERT_TORCH_NCCL_INCLUDE_DIR nccl.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} ${TORCH_INSTALL_PREFIX}/../nvidia/nccl/include)
  set(_nccl_includes "")
  # ProcessGroupNCCL is in a GPU build of LibTorch only (its c10_cuda library, c10_hip on ROCm):
  # without one the probe could only fail, after 20 s of compiling (Debian's libtorch-dev beside
  # a CUDA toolkit, as on CI).
  if(OPCERT_TORCH_NCCL_INCLUDE_DIR AND NOT TORCH_LIBRARIES MATCHES "c10_(cuda|hip)")
    set(OPCERT_TORCH_HAS_NCCL FALSE CACHE INTERNAL "opcert: whether the c10d probe OPCERT_TORCH_HAS_NCCL built")
    file(WRITE ${CMAKE_BINARY_DIR}/opcert_probes/OPCERT_TORCH_HAS_NCCL.log
         "not probed: this LibTorch has no CUDA (no c10_cuda in TORCH_LIBRARIES: ${TORCH_LIBRARIES})\n")
  endif()
  if(OPCERT_TORCH_NCCL_INCLUDE_DIR)
    set(_nccl_includes ${OPCERT_TORCH_NCCL_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
    _opcert_probe_c10d(OPCERT_TORCH_HAS_NCCL nccl "-DUSE_C10D_NCCL;-DOPCERT_TORCH_HAS_NCCL=1" "${_nccl_includes}")
  endif()
endif()
opcert_resolve_option(OPCERT_WITH_TORCH_NCCL OPCERT_TORCH_HAS_NCCL
  "c10d ProcessGroupNCCL in LibTorch (a CUDA build of torch, and nccl.h); ${CMAKE_BINARY_DIR}/opcert_probes/OPCERT_TORCH_HAS_NCCL.log says why")
if(OPCERT_WITH_TORCH_NCCL_ENABLED)
  list(APPEND OPCERT_TORCH_C10D_DEFINITIONS USE_C10D_NCCL OPCERT_TORCH_HAS_NCCL=1)
  list(APPEND OPCERT_TORCH_C10D_INCLUDE_DIRS ${_nccl_includes})
endif()
set(OPCERT_TORCH_HAS_C10D OFF)
if(OPCERT_WITH_TORCH_GLOO_ENABLED OR OPCERT_WITH_TORCH_NCCL_ENABLED)
  set(OPCERT_TORCH_HAS_C10D ON)
  list(APPEND OPCERT_TORCH_C10D_DEFINITIONS OPCERT_TORCH_HAS_C10D=1)
endif()
message(STATUS "opcert: torch backend collectives: Gloo ${OPCERT_WITH_TORCH_GLOO_ENABLED}, NCCL ${OPCERT_WITH_TORCH_NCCL_ENABLED}")
