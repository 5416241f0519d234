# Feature options. AUTO means "on when the dependency is found"; ON makes it required; OFF skips it.
set(OPCERT_WITH_CUDA AUTO CACHE STRING "Build the CUDA backend (AUTO, ON, OFF)")
set(OPCERT_WITH_TORCH AUTO CACHE STRING "Build the LibTorch reference and backend (AUTO, ON, OFF)")
set(OPCERT_WITH_MPI AUTO CACHE STRING "Build MPI-launched collectives (AUTO, ON, OFF)")
set(OPCERT_WITH_NCCL AUTO CACHE STRING "The CUDA backend's collectives on NCCL >= 2.14 (AUTO, ON, OFF; hint: NCCL_ROOT)")
set(OPCERT_WITH_SQLITE AUTO CACHE STRING "Results store in a SQLite file (AUTO, ON, OFF)")
set_property(CACHE OPCERT_WITH_SQLITE PROPERTY STRINGS AUTO ON OFF)
set(OPCERT_WITH_POSTGRES AUTO CACHE STRING "Results store on a PostgreSQL server through libpq (AUTO, ON, OFF)")
set_property(CACHE OPCERT_WITH_POSTGRES PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE OPCERT_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE OPCERT_WITH_TORCH PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE OPCERT_WITH_MPI PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE OPCERT_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)

option(OPCERT_BUILD_TESTS "Build the GoogleTest suite" ${PROJECT_IS_TOP_LEVEL})
option(OPCERT_ENABLE_ASAN "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(OPCERT_BUILD_FUZZERS "Build the loaders' libFuzzer executables (clang; tests/fuzz/)" OFF)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

# Under the sanitizers every report is fatal (UBSan's too), so that a test or a fuzzer fails on it.
# C and C++ only: a CUDA backend built alongside has its host code (.cpp) instrumented, not nvcc's.
if(OPCERT_ENABLE_ASAN OR OPCERT_BUILD_FUZZERS)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined;-fno-sanitize-recover=undefined;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
  # At -O1 clang does not vectorise the `omp simd` loops and says so for each; the build it checks
  # is the optimised one.
  add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:C,CXX>,$<CXX_COMPILER_ID:Clang>>:-Wno-pass-failed>")
endif()
# The fuzzers want every library's code instrumented for coverage, not only their own.
if(OPCERT_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "OPCERT_BUILD_FUZZERS needs clang (libFuzzer): configure with the asan preset")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
endif()

# A plugin library links with --no-undefined, so that a missing symbol is a link error, not a load
# failure; except under the sanitizers, whose runtime (static, with clang) lives in the executable
# that loads the plugin.
function(opcert_plugin_no_undefined target)
  if(NOT (OPCERT_ENABLE_ASAN OR OPCERT_BUILD_FUZZERS))
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()

# Warnings for our own targets only (dependencies come in as SYSTEM includes).
function(opcert_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>)
endfunction()
