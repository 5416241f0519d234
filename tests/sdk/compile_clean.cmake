# cmake -DCOMPILER=... -DSOURCES=a.cpp;b.cpp -DINCLUDE=dir;dir -P compile_clean.cmake: compiles each
# source as a plugin author would, warnings as errors; fails naming the first that warns.
list(TRANSFORM INCLUDE PREPEND -I OUTPUT_VARIABLE _include_flags)
foreach(source IN LISTS SOURCES)
  execute_process(COMMAND ${COMPILER} -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -fPIC ${_include_flags}
                          -c ${source} -o /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${COMPILER} warns on ${source}:\n${out}${err}")
  endif()
  message(STATUS "${COMPILER}: ${source}: clean")
endforeach()
