# Install rules and the exported CMake package, so that a backend author's project can do
#
#   find_package(opcert CONFIG REQUIRED)          # from an install prefix or a build tree
#   target_link_libraries(my_backend PRIVATE opcert::sdk)
#
# The package holds two INTERFACE targets: opcert::abi (backend_abi.h, C99) and opcert::sdk
# (the header-only C++ SDK, which brings opcert::abi). When the opcert executable is installed
# too, the package also defines the imported executable opcert::opcert and opcert_EXECUTABLE, so a
# plugin's own tests can run `opcert list` / `opcert run` against the plugin.
#
# Layout under the prefix (GNUInstallDirs):
#   bin/opcert
#   include/opcert/backend_abi.h, include/opcert/sdk/*.h
#   <libdir>/cmake/opcert/opcert{Config,ConfigVersion,Targets,Executable}.cmake
#   <libdir>/opcert/libopcert_python.so        the Python bridge (backends/python), when built
#   <libexecdir>/opcert/libopcert_mutants.so   opcert selftest's mutant backend (backends/mutants):
#                                              test code, kept out of <libdir>/opcert
#   <libexecdir>/opcert/opcert-plugin-probe     the plugin probe's child, which every verb that loads
#                                              plugins starts (harness/cli/plugin_probe_main.cpp)
#   share/opcert/configs/*.json        platform configs
#   share/opcert/suites/**/*.json      suites (docs/SUITES.md), found by name after OPCERT_SUITE_PATH
#   share/opcert/schema/               report.schema.json, junit.xsd (reports/schema)
#   share/opcert/plugins/              where plugins install their manifests (a plugin dir)
#   share/doc/opcert/                  README.md, docs/*.md, examples/plugin/
#
# The build tree mirrors the package files under <build>/<libdir>/cmake/opcert, so
# -DCMAKE_PREFIX_PATH=<build> (or -Dopcert_DIR=<build>/<libdir>/cmake/opcert) finds it as well.
include(CMakePackageConfigHelpers)

set(OPCERT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/opcert"
    CACHE STRING "Where opcertConfig.cmake is installed, relative to the prefix")
set(OPCERT_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/opcert")
mark_as_advanced(OPCERT_INSTALL_CMAKEDIR)

# The ABI version the installed headers declare, published to plugin projects (manifests need it).
file(STRINGS "${PROJECT_SOURCE_DIR}/backends/sdk/include/opcert/backend_abi.h" _opcert_abi_lines
     REGEX "^#define OPCERT_ABI_VERSION_(MAJOR|MINOR) +[0-9]+")
foreach(_part MAJOR MINOR)
  set(OPCERT_ABI_VERSION_${_part} "")
  foreach(_line IN LISTS _opcert_abi_lines)
    if(_line MATCHES "^#define OPCERT_ABI_VERSION_${_part} +([0-9]+)")
      set(OPCERT_ABI_VERSION_${_part} "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(OPCERT_ABI_VERSION_${_part} STREQUAL "")
    message(FATAL_ERROR "OpcertInstall: cannot read OPCERT_ABI_VERSION_${_part} from backend_abi.h")
  endif()
endforeach()

# --- Headers and the exported INTERFACE targets ---------------------------------------------
install(TARGETS opcert_abi opcert_sdk EXPORT opcertTargets)
install(FILES "${PROJECT_SOURCE_DIR}/backends/sdk/include/opcert/backend_abi.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/opcert" COMPONENT Development)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/backends/sdk/include/opcert/sdk"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/opcert" COMPONENT Development
        FILES_MATCHING PATTERN "*.h")
install(FILES "${OPCERT_SDK_BUILD_INCLUDE}/opcert/sdk/ops.h"  # made from the ops/ folder (backends/sdk)
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/opcert/sdk" COMPONENT Development)

install(EXPORT opcertTargets NAMESPACE opcert:: FILE opcertTargets.cmake
        DESTINATION "${OPCERT_INSTALL_CMAKEDIR}" COMPONENT Development)
set(_opcert_build_cmakedir "${PROJECT_BINARY_DIR}/${OPCERT_INSTALL_CMAKEDIR}")
# Files generated for the install only. Not a direct child of the build tree named opcert*, or
# find_package with CMAKE_PREFIX_PATH=<build> would pick these up instead of the build-tree ones.
set(_opcert_install_stage "${PROJECT_BINARY_DIR}/CMakeFiles/opcert-install-package")
export(EXPORT opcertTargets NAMESPACE opcert:: FILE "${_opcert_build_cmakedir}/opcertTargets.cmake")

# --- Package config and version --------------------------------------------------------------
# One template, configured twice: PACKAGE_PREFIX_DIR resolves to the install prefix (computed
# from the config file's own location, so the prefix can move) or to the build tree.
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/opcertConfig.cmake.in"
  "${_opcert_install_stage}/opcertConfig.cmake"
  INSTALL_DESTINATION "${OPCERT_INSTALL_CMAKEDIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/opcertConfig.cmake.in"
  "${_opcert_build_cmakedir}/opcertConfig.cmake"
  INSTALL_DESTINATION "${_opcert_build_cmakedir}"
  INSTALL_PREFIX "${PROJECT_BINARY_DIR}")
write_basic_package_version_file("${_opcert_build_cmakedir}/opcertConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMajorVersion)
install(FILES "${_opcert_install_stage}/opcertConfig.cmake"
              "${_opcert_build_cmakedir}/opcertConfigVersion.cmake"
        DESTINATION "${OPCERT_INSTALL_CMAKEDIR}" COMPONENT Development)

# --- The opcert executable -------------------------------------------------------------------
# opcertExecutable.cmake says where the executable is; opcertConfig.cmake includes it when present.
if(TARGET opcert)
  install(TARGETS opcert RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Runtime)
  file(GENERATE OUTPUT "${_opcert_build_cmakedir}/opcertExecutable.cmake"
       CONTENT "set(_opcert_executable \"$<TARGET_FILE:opcert>\")\n")
  file(GENERATE OUTPUT "${_opcert_install_stage}/opcertExecutable.cmake"
       CONTENT "set(_opcert_executable \"\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:opcert>\")\n")
  install(FILES "${_opcert_install_stage}/opcertExecutable.cmake"
          DESTINATION "${OPCERT_INSTALL_CMAKEDIR}" COMPONENT Runtime)
endif()

# --- Data: platform configs, the plugin directory, documentation -----------------------------
install(DIRECTORY "${PROJECT_SOURCE_DIR}/configs/"
        DESTINATION "${OPCERT_INSTALL_DATADIR}/configs" COMPONENT Runtime
        FILES_MATCHING PATTERN "*.json")
# Suites by name ("smoke", "sweeps/gemm", "models/llama3-8b"); an installed opcert finds them from
# its own path (harness/loader/install_layout.cpp) and never reads the source tree.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/suites/"
        DESTINATION "${OPCERT_INSTALL_DATADIR}/suites" COMPONENT Runtime
        FILES_MATCHING PATTERN "*.json")
# The schemas of the report files (report.json, results.jsonl lines, junit.xml), for users' tools.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/reports/schema/"
        DESTINATION "${OPCERT_INSTALL_DATADIR}/schema" COMPONENT Runtime)
# An empty plugins/ directory, so that OPCERT_PLUGIN_PATH=<prefix>/share/opcert/plugins is valid
# before the first plugin is installed.
install(DIRECTORY DESTINATION "${OPCERT_INSTALL_DATADIR}/plugins" COMPONENT Runtime)
if(EXISTS "${PROJECT_SOURCE_DIR}/README.md")
  install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT Documentation)
endif()
if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/docs")
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/"
          DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT Documentation
          FILES_MATCHING PATTERN "*.md")
endif()
if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/examples/plugin")
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/plugin"
          DESTINATION "${CMAKE_INSTALL_DOCDIR}/examples" COMPONENT Documentation
          PATTERN "build*" EXCLUDE)
endif()

unset(_opcert_abi_lines)
unset(_opcert_build_cmakedir)
unset(_opcert_install_stage)
