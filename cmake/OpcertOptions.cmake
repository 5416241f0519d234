# Feature options. AUTO means "on when the dependency is found"; ON makes it required; OFF skips it.
set(OPCERT_WITH_CUDA AUTO CACHE STRING "Build the CUDA backend (AUTO, ON, OFF)")
set(OPCERT_WITH_TORCH AUTO CACHE STRING "Build the LibTorch reference and backend (AUTO, ON, OFF)")
set(OPCERT_WITH_MPI AUTO CACHE STRING "Build MPI-launched collectives (AUTO, ON, OFF)")
set(OPCERT_WITH_NCCL AUTO CACHE STRING "The CUDA backend's collectives on NCCL >= 2.14 (AUTO, ON, OFF; hint: NCCL_ROOT)")
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

if(OPCERT_ENABLE_ASAN)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
# The fuzzers want every library's code instrumented for coverage, not only their own.
if(OPCERT_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "OPCERT_BUILD_FUZZERS needs clang (libFuzzer): configure with the fuzz preset")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Warnings for our own targets only (dependencies come in as SYSTEM includes).
function(opcert_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>)
endfunction()
