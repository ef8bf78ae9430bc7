# The memory allocator of the project's executables (docs/scaling.md).
#
# The mapper builds and drops many short-lived vectors per layer and mapping;
# on 3,000 transformer blocks glibc's malloc took about 15% of the samples in
# its free lists (malloc_consolidate, unlink_chunk, _int_malloc, _int_free).
# tcmalloc's per-size caches take 10,000 transformer blocks from 49 s to
# 33 s of CPU and leave small models as they were. Only executables choose an allocator:
# the libraries, the C API and the Python package leave it to their host.
#
#   DSM_ALLOCATOR=auto      tcmalloc when libtcmalloc_minimal is installed
#                           (Debian: libgoogle-perftools-dev), else malloc
#   DSM_ALLOCATOR=tcmalloc  tcmalloc, or a configure error
#   DSM_ALLOCATOR=system    the C library's malloc
#
# The sanitizers and libFuzzer own malloc themselves: with DSM_SANITIZE or
# DSM_FUZZERS the allocator is always the system's.

set(DSM_ALLOCATOR "auto" CACHE STRING
    "Allocator of the executables: auto (tcmalloc when installed), tcmalloc, system")
set_property(CACHE DSM_ALLOCATOR PROPERTY STRINGS auto tcmalloc system)

set(DSM_ALLOCATOR_LIBRARY "")
if(DSM_SANITIZE OR DSM_FUZZERS)
  if(DSM_ALLOCATOR STREQUAL "tcmalloc")
    message(FATAL_ERROR "DSM_ALLOCATOR=tcmalloc cannot be used with the "
                        "sanitizers or libFuzzer, which replace malloc")
  endif()
elseif(DSM_ALLOCATOR STREQUAL "auto" OR DSM_ALLOCATOR STREQUAL "tcmalloc")
  find_library(DSM_TCMALLOC_LIBRARY NAMES tcmalloc_minimal)
  if(DSM_TCMALLOC_LIBRARY)
    set(DSM_ALLOCATOR_LIBRARY ${DSM_TCMALLOC_LIBRARY})
  elseif(DSM_ALLOCATOR STREQUAL "tcmalloc")
    message(FATAL_ERROR "DSM_ALLOCATOR=tcmalloc: libtcmalloc_minimal not "
                        "found (Debian: libgoogle-perftools-dev)")
  endif()
elseif(NOT DSM_ALLOCATOR STREQUAL "system")
  message(FATAL_ERROR "DSM_ALLOCATOR must be auto, tcmalloc or system, "
                      "not '${DSM_ALLOCATOR}'")
endif()
if(DSM_ALLOCATOR_LIBRARY)
  message(STATUS "Executables allocate with ${DSM_ALLOCATOR_LIBRARY}")
else()
  message(STATUS "Executables allocate with the C library's malloc")
endif()

# dsm_use_allocator(<executable>...): links the chosen allocator into the
# executable, ahead of the C library in the search order for symbols, so
# that its malloc and operator new are the ones every library resolves to.
function(dsm_use_allocator)
  if(NOT DSM_ALLOCATOR_LIBRARY)
    return()
  endif()
  foreach(target ${ARGN})
    # Kept even though no symbol of the executable names it directly.
    target_link_libraries(${target} PRIVATE
      -Wl,--push-state,--no-as-needed ${DSM_ALLOCATOR_LIBRARY} -Wl,--pop-state)
  endforeach()
endfunction()
