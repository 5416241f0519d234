# FindNCCL: NVIDIA's collective communications library, as the imported target NCCL::NCCL.
#
# Looks, in order, in:
#   NCCL_ROOT (cache variable, then environment variable): <root>/include/nccl.h, <root>/lib
#   the Python package nvidia-nccl (pip's nvidia-nccl-cu*, what PyTorch wheels bring):
#     <site-packages>/nvidia/nccl/{include,lib}
#   the CUDA toolkit (CUDAToolkit_ROOT / CUDAToolkit_INCLUDE_DIRS / CUDAToolkit_LIBRARY_DIR),
#   then the system's default paths.
# The version comes from nccl.h (NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH); find_package(NCCL 2.14)
# checks it. The Python package ships libnccl.so.2 without the libnccl.so link, so both names
# are tried.
#
# Sets NCCL_FOUND, NCCL_VERSION, NCCL_INCLUDE_DIR, NCCL_LIBRARY and the target NCCL::NCCL.

set(NCCL_ROOT "${NCCL_ROOT}" CACHE PATH "Where NCCL is installed (holds include/nccl.h and lib/)")

set(_nccl_hints)
if(NCCL_ROOT)
  list(APPEND _nccl_hints "${NCCL_ROOT}")
endif()
if(DEFINED ENV{NCCL_ROOT})
  list(APPEND _nccl_hints "$ENV{NCCL_ROOT}")
endif()

# The nvidia-nccl wheel, where the GPU machine's NCCL lives (docs/CUDA.md).
find_package(Python3 QUIET COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))"
    OUTPUT_VARIABLE _nccl_site ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _nccl_python_rc)
  if(_nccl_python_rc EQUAL 0 AND EXISTS "${_nccl_site}/nvidia/nccl")
    list(APPEND _nccl_hints "${_nccl_site}/nvidia/nccl")
  endif()
endif()

if(CUDAToolkit_ROOT)
  list(APPEND _nccl_hints "${CUDAToolkit_ROOT}")
endif()
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints "${CUDAToolkit_LIBRARY_ROOT}")
endif()

find_path(NCCL_INCLUDE_DIR NAMES nccl.h
  HINTS ${_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
  HINTS ${_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_nccl_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_nccl_part} +([0-9]+)" _nccl_match "${_nccl_version_lines}")
    set(_nccl_${_nccl_part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT _nccl_MAJOR STREQUAL "")
    set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR NCCL_VERSION
  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
