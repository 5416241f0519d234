# The torch backend's collectives run through LibTorch's c10d process groups from C++:
# ProcessGroupGloo for host memory, ProcessGroupNCCL for CUDA memory. Whether the LibTorch that
# find_package(Torch) found has them (headers that compile, symbols that link) is probed here:
# Debian's libtorch-dev has Gloo (with libgloo-dev's headers) and no CUDA; pip's torch with CUDA
# has both. Sets OPCERT_WITH_TORCH_GLOO_ENABLED and OPCERT_WITH_TORCH_NCCL_ENABLED and, for the
# backend, the lists OPCERT_TORCH_C10D_DEFINITIONS, OPCERT_TORCH_C10D_INCLUDE_DIRS and
# OPCERT_TORCH_C10D_LIBRARIES. Included by backends/torch once LibTorch is found.
set(OPCERT_WITH_TORCH_GLOO AUTO CACHE STRING "torch backend collectives on host memory through c10d ProcessGroupGloo (AUTO, ON, OFF)")
set(OPCERT_WITH_TORCH_NCCL AUTO CACHE STRING "torch backend collectives on CUDA memory through c10d ProcessGroupNCCL (AUTO, ON, OFF)")
set_property(CACHE OPCERT_WITH_TORCH_GLOO PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE OPCERT_WITH_TORCH_NCCL PROPERTY STRINGS AUTO ON OFF)

set(OPCERT_TORCH_C10D_DEFINITIONS "")
set(OPCERT_TORCH_C10D_INCLUDE_DIRS "")
set(OPCERT_TORCH_C10D_LIBRARIES "")

# Compiles and links `source` against LibTorch with the extra definitions, include folders and
# libraries; the result (TRUE/FALSE) lands in `result`, cached so that reconfiguring is quick.
function(_opcert_probe_c10d result source definitions include_dirs libraries)
  if(DEFINED ${result})
    return()
  endif()
  set(_dir ${CMAKE_BINARY_DIR}/opcert_probes)
  file(WRITE ${_dir}/${result}.cpp "${source}")
  separate_arguments(_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  try_compile(_ok ${_dir}/${result}
    SOURCES ${_dir}/${result}.cpp
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${TORCH_INCLUDE_DIRS};${include_dirs}"
    COMPILE_DEFINITIONS ${_torch_flags} ${definitions}
    LINK_LIBRARIES ${TORCH_LIBRARIES} ${libraries}
    CXX_STANDARD 20
    OUTPUT_VARIABLE _log)
  if(NOT _ok)
    file(WRITE ${_dir}/${result}.log "${_log}")
  endif()
  set(${result} ${_ok} CACHE INTERNAL "opcert: whether the c10d probe ${result} built")
endfunction()

# Shared by both probes: a TCP store, a process group of one rank, the calls the backend makes.
set(_opcert_c10d_probe_main [=[
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
int main() {
  c10d::TCPStoreOptions o;
  o.port = 0;
  o.isServer = true;
  c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::PrefixStore>("p", c10::make_intrusive<c10d::TCPStore>("127.0.0.1", o));
  auto pg = make_group(store);
  at::Tensor t = at::ones({4});
  std::vector<at::Tensor> ts{t};
  std::vector<std::vector<at::Tensor>> lists{{t}};
  std::vector<int64_t> splits;
  c10::intrusive_ptr<c10d::Work> w = pg->allreduce(ts);
  w = pg->broadcast(ts);
  w = pg->allgather(lists, ts);
  w = pg->alltoall_base(t, t, splits, splits);
  extra_calls(*pg, t);
  return w->isCompleted() && !w->exception() ? 0 : 1;
}
]=])

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
  set(_gloo_probe [=[
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
c10::intrusive_ptr<c10d::ProcessGroupGloo> make_group(const c10::intrusive_ptr<c10d::Store>& store) {
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::milliseconds(1000));
  options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, 0, 1, options);
}
void extra_calls(c10d::ProcessGroupGloo&, at::Tensor&) {}
]=])
  _opcert_probe_c10d(OPCERT_TORCH_HAS_GLOO "${_gloo_probe}${_opcert_c10d_probe_main}" "-DUSE_C10D_GLOO" "${_gloo_includes}" "${_gloo_libraries}")
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
  if(OPCERT_TORCH_NCCL_INCLUDE_DIR)
    set(_nccl_includes ${OPCERT_TORCH_NCCL_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
    set(_nccl_probe [=[
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
c10::intrusive_ptr<c10d::ProcessGroupNCCL> make_group(const c10::intrusive_ptr<c10d::Store>& store) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = std::chrono::milliseconds(1000);
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, 0, 1, options);
}
void extra_calls(c10d::ProcessGroupNCCL& pg, at::Tensor& t) {
  at::Tensor big = at::ones({4});
  pg._allgather_base(big, t);
  pg._reduce_scatter_base(t, big);
  pg.abort();
}
]=])
    _opcert_probe_c10d(OPCERT_TORCH_HAS_NCCL "${_nccl_probe}${_opcert_c10d_probe_main}" "-DUSE_C10D_NCCL" "${_nccl_includes}" "")
  endif()
endif()
opcert_resolve_option(OPCERT_WITH_TORCH_NCCL OPCERT_TORCH_HAS_NCCL
  "c10d ProcessGroupNCCL in LibTorch (a CUDA build of torch, and nccl.h); ${CMAKE_BINARY_DIR}/opcert_probes/OPCERT_TORCH_HAS_NCCL.log says why")
if(OPCERT_WITH_TORCH_NCCL_ENABLED)
  list(APPEND OPCERT_TORCH_C10D_DEFINITIONS USE_C10D_NCCL OPCERT_TORCH_HAS_NCCL=1)
  list(APPEND OPCERT_TORCH_C10D_INCLUDE_DIRS ${_nccl_includes})
endif()
message(STATUS "opcert: torch backend collectives: Gloo ${OPCERT_WITH_TORCH_GLOO_ENABLED}, NCCL ${OPCERT_WITH_TORCH_NCCL_ENABLED}")
