# `cmake --install` for downstream compilers (docs/integration.md): headers
# (with the generated .inc files and the .td files), the static libraries of
# every tier with exported targets DSM::<library>, the tools, the mlir-opt
# plugin, the learner module, and DSMConfig.cmake so that `find_package(DSM)` works.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(dsm_core_libraries GLOBAL PROPERTY DSM_CORE_LIBRARIES)
set(dsm_installed_libraries
  ${dsm_core_libraries} DsmCore DsmDialect DsmMLIRSupport DsmPasses DsmImport DsmExport)
if(DSM_ENABLE_ONNX)
  list(APPEND dsm_installed_libraries DsmImportOnnx DsmOnnxProto)
endif()

# Inside the build, targets find headers through the directory's include
# paths; installed, through these.
foreach(library ${dsm_installed_libraries})
  target_include_directories(${library} INTERFACE
    $<BUILD_INTERFACE:${DSM_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${DSM_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

install(TARGETS ${dsm_installed_libraries}
  EXPORT DSMTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Installed tools find libMLIR/libLLVM where they were linked from.
set_target_properties(dsm-opt dsm-translate DsmPlugin DsmCAPI PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS dsm-opt dsm-translate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS DsmPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The C API as DSM::CAPI; with the learner module, the Python package and
# the report schemas it is also the component DsmPython, which
# `cmake --install build --component DsmPython` installs alone (the Python
# tests do, into a scratch prefix).
install(TARGETS DsmCAPI EXPORT DSMTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT DsmPython)
# The learner module (placement=egrl, pg) beside them, where DsmMemory looks
# for it (lib/Memory/Learning/LearnerModule.cpp).
if(TARGET DsmMemoryLearning)
  set_target_properties(DsmMemoryLearning PROPERTIES
    INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS DsmMemoryLearning LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    COMPONENT DsmPython)
endif()
# The reports' JSON Schemas (docs/schemas), for whoever reads the reports.
install(DIRECTORY ${DSM_SOURCE_DIR}/docs/schemas/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/dsm/schemas COMPONENT DsmPython
  FILES_MATCHING PATTERN "*.schema.json")
install(DIRECTORY ${DSM_SOURCE_DIR}/include/dsm-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${DSM_SOURCE_DIR}/include/dsm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${DSM_BINARY_DIR}/include/dsm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc")

set(DSM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/DSM)
install(EXPORT DSMTargets NAMESPACE DSM:: DESTINATION ${DSM_INSTALL_CMAKEDIR})
configure_package_config_file(${DSM_SOURCE_DIR}/cmake/DSMConfig.cmake.in
  ${DSM_BINARY_DIR}/DSMConfig.cmake
  INSTALL_DESTINATION ${DSM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${DSM_BINARY_DIR}/DSMConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${DSM_BINARY_DIR}/DSMConfig.cmake
              ${DSM_BINARY_DIR}/DSMConfigVersion.cmake
        DESTINATION ${DSM_INSTALL_CMAKEDIR})
