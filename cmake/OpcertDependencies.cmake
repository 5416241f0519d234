# Every dependency comes from a distribution package through find_package; nothing is downloaded.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)  # sha256 of plugin libraries
find_package(benchmark REQUIRED)  # Google Benchmark: the engine of `opcert bench`
if(OPCERT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# Resolves an AUTO/ON/OFF option against whether a package was found; ON and missing is an error.
function(opcert_resolve_option option found what)
  if(${option} STREQUAL "OFF")
    set(${option}_ENABLED OFF PARENT_SCOPE)
  elseif(${found})
    set(${option}_ENABLED ON PARENT_SCOPE)
  elseif(${option} STREQUAL "ON")
    message(FATAL_ERROR "${option}=ON but ${what} was not found")
  else()
    set(${option}_ENABLED OFF PARENT_SCOPE)
  endif()
endfunction()

if(NOT OPCERT_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
endif()
set(_opcert_cuda_found FALSE)
if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
  set(_opcert_cuda_found TRUE)
endif()
opcert_resolve_option(OPCERT_WITH_CUDA _opcert_cuda_found "the CUDA toolkit (nvcc)")
if(OPCERT_WITH_CUDA_ENABLED)
  # Ampere for portability, Hopper with its arch-specific features (wgmma, TMA) for the H100.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90a)
  endif()
  enable_language(CUDA)
  # CMake 3.25 predates nvcc 12's C++20 support; tell it the flag.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
endif()

if(NOT OPCERT_WITH_TORCH STREQUAL "OFF")
  find_package(Torch QUIET)
endif()
opcert_resolve_option(OPCERT_WITH_TORCH Torch_FOUND "LibTorch (libtorch-dev, or torch.utils.cmake_prefix_path)")

if(NOT OPCERT_WITH_MPI STREQUAL "OFF")
  # The C bindings only: MPI's C++ bindings are deprecated, and the C API is all opcert calls.
  find_package(MPI QUIET COMPONENTS C)
endif()
opcert_resolve_option(OPCERT_WITH_MPI MPI_C_FOUND "MPI (libopenmpi-dev)")
if(OPCERT_WITH_MPI_ENABLED)
  # mpi.h pulls in the deprecated C++ bindings when compiled as C++; opcert links only the C library.
  target_compile_definitions(MPI::MPI_C INTERFACE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
endif()

# NCCL carries the CUDA backend's collectives (cmake/FindNCCL.cmake: NCCL_ROOT, the nvidia-nccl
# Python package, the CUDA toolkit). Without it the CUDA backend builds and declines them.
set(_opcert_nccl_found FALSE)
if(OPCERT_WITH_CUDA_ENABLED AND NOT OPCERT_WITH_NCCL STREQUAL "OFF")
  find_package(NCCL 2.14 QUIET)
  set(_opcert_nccl_found ${NCCL_FOUND})
elseif(NOT OPCERT_WITH_CUDA_ENABLED AND OPCERT_WITH_NCCL STREQUAL "ON")
  message(FATAL_ERROR "OPCERT_WITH_NCCL=ON needs the CUDA backend (OPCERT_WITH_CUDA)")
endif()
opcert_resolve_option(OPCERT_WITH_NCCL _opcert_nccl_found
  "NCCL >= 2.14 (nccl.h and libnccl; set NCCL_ROOT, e.g. to the nvidia-nccl Python package's nvidia/nccl folder)")
if(OPCERT_WITH_NCCL_ENABLED)
  message(STATUS "opcert: NCCL ${NCCL_VERSION} (${NCCL_LIBRARY})")
endif()

# SQLite is the results store's default database (libsqlite3-dev; docs/HISTORY.md; 3.35 for
# RETURNING). A machine without its headers (the GPU machine) builds opcert without SQLite stores.
if(NOT OPCERT_WITH_SQLITE STREQUAL "OFF")
  find_package(SQLite3 3.35 QUIET)
endif()
opcert_resolve_option(OPCERT_WITH_SQLITE SQLite3_FOUND "SQLite >= 3.35 (libsqlite3-dev)")

# libpq puts the results store on a PostgreSQL server (`--db postgresql://...`); without it a
# store is a SQLite file only.
if(NOT OPCERT_WITH_POSTGRES STREQUAL "OFF")
  find_package(PostgreSQL QUIET)
endif()
opcert_resolve_option(OPCERT_WITH_POSTGRES PostgreSQL_FOUND "libpq (libpq-dev)")

# The chart library the dashboard copies beside its pages (libjs-chart.js): found at configure
# time, read when `opcert dashboard` runs; OPCERT_CHARTJS overrides it then.
find_file(OPCERT_CHARTJS_PATH NAMES chart.min.js Chart.min.js PATHS /usr/share/javascript/chart.js NO_DEFAULT_PATH
          DOC "Chart.js (UMD build) for `opcert dashboard`")
if(NOT OPCERT_CHARTJS_PATH)
  set(OPCERT_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js" CACHE FILEPATH "" FORCE)
endif()

message(STATUS "opcert: CUDA ${OPCERT_WITH_CUDA_ENABLED}, LibTorch ${OPCERT_WITH_TORCH_ENABLED}, MPI ${OPCERT_WITH_MPI_ENABLED}, "
               "NCCL ${OPCERT_WITH_NCCL_ENABLED}, SQLite ${OPCERT_WITH_SQLITE_ENABLED}, PostgreSQL ${OPCERT_WITH_POSTGRES_ENABLED}")
