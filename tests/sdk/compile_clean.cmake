# cmake -DCOMPILER=... -DSOURCES=a.cpp;b.cpp -DINCLUDE=dir -P compile_clean.cmake: compiles each
# source as a plugin author would, warnings as errors; fails naming the first that warns.
foreach(source IN LISTS SOURCES)
  execute_process(COMMAND ${COMPILER} -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -fPIC -I${INCLUDE}
                          -c ${source} -o /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${COMPILER} warns on ${source}:\n${out}${err}")
  endif()
  message(STATUS "${COMPILER}: ${source}: clean")
endforeach()
