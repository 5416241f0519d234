# Writes the source tree's commit into a C++ file at every build (cmake -P), so that a binary's
# reports and certificates name the commit it was built from, not the one it was configured at.
# "-dirty" marks a tree with changes to tracked files. The file is rewritten only when the text
# changes, so an unchanged tree rebuilds nothing.
#   cmake -DSOURCE_DIR=<tree> -DOUTPUT=<file.cpp> -P OpcertGitCommit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "// Generated at build time by cmake/OpcertGitCommit.cmake.\n#include \"cli/build_info.h\"\n\nnamespace opcert {\n\nconst char* const kGitCommit = \"${commit}\";\n\n}  // namespace opcert\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
