# Functions for the rooms of DsmCore, the MLIR-free core library.
#
# Core targets do not inherit the project's include directories: they see the
# repository's include/ (for dsm/Core/...), the build's include/ (generated
# .inc files) and a directory that exposes only LLVM's headers. MLIR's headers
# live next to LLVM's in Debian's /usr/lib/llvm-22/include, so a plain
# include path would let `#include "mlir/..."` in the core compile; here it
# fails to build, which is what keeps the core usable without MLIR.

set(DSM_CORE_LLVM_INCLUDE_DIR ${DSM_BINARY_DIR}/core-include)
file(MAKE_DIRECTORY ${DSM_CORE_LLVM_INCLUDE_DIR})
foreach(dir llvm llvm-c)
  foreach(root ${LLVM_INCLUDE_DIRS})
    if(EXISTS ${root}/${dir} AND NOT EXISTS ${DSM_CORE_LLVM_INCLUDE_DIR}/${dir})
      file(CREATE_LINK ${root}/${dir} ${DSM_CORE_LLVM_INCLUDE_DIR}/${dir} SYMBOLIC)
    endif()
  endforeach()
endforeach()
set(DSM_CORE_INCLUDE_DIRS
  ${DSM_SOURCE_DIR}/include ${DSM_BINARY_DIR}/include)
set(DSM_CORE_SYSTEM_INCLUDE_DIRS ${DSM_CORE_LLVM_INCLUDE_DIR})

function(dsm_core_includes target)
  set_target_properties(${target} PROPERTIES INCLUDE_DIRECTORIES "")
  target_include_directories(${target} PRIVATE ${DSM_CORE_INCLUDE_DIRS})
  target_include_directories(${target} SYSTEM PRIVATE ${DSM_CORE_SYSTEM_INCLUDE_DIRS})
endfunction()

# dsm_add_core_library(<name> <sources>... [LINK <core libraries>...])
function(dsm_add_core_library name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  dsm_core_includes(${name})
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${DSM_LLVM_LIBS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL APPEND PROPERTY DSM_CORE_LIBRARIES ${name})
endfunction()

# dsm_add_unittest(<name> <sources>... [LINK <core libraries>...])
# A GoogleTest binary of one room; lit (test/Unit) runs every bin/*Tests.
function(dsm_add_unittest name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  dsm_core_includes(${name})
  target_include_directories(${name} PRIVATE ${DSM_SOURCE_DIR}/unittests)
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest GTest::gtest_main)
  set_property(GLOBAL APPEND PROPERTY DSM_UNITTESTS ${name})
endfunction()
